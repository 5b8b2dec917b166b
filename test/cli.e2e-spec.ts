import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { bearer } from './support/flows';
import { admin, databaseUrl } from './support/databases';
import { Stack } from './support/stack';
import { logIn } from './support/dashboard';
import { Webhook } from 'standardwebhooks';
import { DEVELOPMENT_ENCRYPTION_KEY, SecretBox } from '@app/shared';
import { LOGIN_HOOK_SECRETS, LoginHooksService } from '../apps/api/src/login-hooks/login-hooks.service';

const CLI = join(__dirname, '..', 'dist', 'apps', 'api', 'src', 'cli', 'main.js');

// Each command is a node process that loads the CLI and its database and queue clients, about a second
// of CPU; a test runs up to a few dozen of them, which on a busy 2-core machine takes more than the
// suite's 30 s (seen at load averages above 7). A bound on a test's length, not a wait.
jest.setTimeout(120_000);

describe('operator CLI', () => {
  let stack: Stack;

  beforeAll(async () => {
    if (!existsSync(CLI)) throw new Error('The CLI is not built: npm test builds it (npm run build:js)');
    stack = await Stack.start({ apps: ['api'] });
  });
  afterAll(() => stack.stop());

  async function cli(args: string[], env: Record<string, string> = {}) {
    try {
      const { stdout, stderr } = await promisify(execFile)('node', [CLI, ...args], {
        env: { PATH: process.env.PATH, DATABASE_URL: stack.config.DATABASE_URL, REDIS_URL: stack.config.REDIS_URL, LOG_LEVEL: 'silent', ...env },
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
      return { code, stdout, stderr };
    }
  }

  it('products create --json prints one JSON object with live and test keys that work', async () => {
    const result = await cli(['products', 'create', '--name', 'Acme', '--invite-url', 'https://acme.example/join', '--referral-places', '3', '--json']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const created = JSON.parse(result.stdout);
    expect(created).toEqual({
      id: expect.stringMatching(/^prod_/),
      keys: {
        live: { secret: expect.stringMatching(/^sk_live_/), publishable: expect.stringMatching(/^pk_live_/) },
        test: { secret: expect.stringMatching(/^sk_test_/), publishable: expect.stringMatching(/^pk_test_/) },
      },
    });
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
    const [product] = await stack.db.query('SELECT name, invite_url, referral_places FROM products WHERE id = $1', [created.id]);
    expect(product).toEqual({ name: 'Acme', invite_url: 'https://acme.example/join', referral_places: 3 });
    const response = await stack.request({ method: 'GET', url: '/api/v1/entries', headers: bearer(created.keys.live.secret) });
    expect(response.status).toBe(200);
  });

  it('keys create gives a working pair; keys revoke makes the secret key answer 401', async () => {
    const product = JSON.parse((await cli(['products', 'create', '--name', 'Keys', '--json'])).stdout);
    const created = await cli(['keys', 'create', '--product', product.id, '--mode', 'test', '--json']);
    expect(created.code).toBe(0);
    const pair = JSON.parse(created.stdout);
    expect(pair).toEqual({ secret: expect.stringMatching(/^sk_test_/), publishable: expect.stringMatching(/^pk_test_/) });
    const list = () => stack.request({ method: 'GET', url: '/api/v1/entries', headers: bearer(pair.secret) });
    expect((await list()).status).toBe(200);
    expect((await cli(['keys', 'revoke', '--key', pair.secret])).code).toBe(0);
    expect((await list()).status).toBe(401);
    // The product's other keys keep working.
    expect((await stack.request({ method: 'GET', url: '/api/v1/entries', headers: bearer(product.keys.test.secret) })).status).toBe(200);
  });

  it('keys revoke takes a publishable key too, and --pair revokes both keys of the pair; other pairs keep working', async () => {
    const product = JSON.parse((await cli(['products', 'create', '--name', 'Pairs', '--json'])).stdout);
    const newPair = async () => JSON.parse((await cli(['keys', 'create', '--product', product.id, '--mode', 'test', '--json'])).stdout);
    const signUp = (key: string) => stack.request({ method: 'POST', url: '/public/v1/signups', body: { key, email: 'pairs@example.com' } });
    const list = (secret: string) => stack.request({ method: 'GET', url: '/api/v1/entries', headers: bearer(secret) });

    const alone = await newPair();
    const revoked = await cli(['keys', 'revoke', '--key', alone.publishable, '--json']);
    expect(revoked).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(revoked.stdout)).toEqual({ revoked: true, kinds: ['publishable'] });
    expect((await signUp(alone.publishable)).status).toBe(401);
    expect((await list(alone.secret)).status).toBe(200);
    expect((await cli(['keys', 'revoke', '--key', alone.publishable])).stderr).toMatch(/No such publishable key in use/);

    const both = await newPair();
    const paired = await cli(['keys', 'revoke', '--key', both.secret, '--pair']);
    expect(paired).toMatchObject({ code: 0, stderr: '' });
    expect(paired.stdout).toContain('Revoked both keys of the pair');
    expect([(await list(both.secret)).status, (await signUp(both.publishable)).status]).toEqual([401, 401]);
    // The pair whose secret is revoked already: --pair from its publishable key revokes what is left.
    const rest = await cli(['keys', 'revoke', '--key', alone.secret, '--pair', '--json']);
    expect(JSON.parse(rest.stdout)).toEqual({ revoked: true, kinds: ['secret'] });
    expect((await list(alone.secret)).status).toBe(401);

    expect((await signUp(product.keys.test.publishable)).status).toBe(202);
    expect((await list(product.keys.test.secret)).status).toBe(200);
    expect((await cli(['keys', 'revoke', '--key', 'xk_test_nope'])).stderr).toMatch(/--key must be a secret key \(sk_…\) or a publishable key \(pk_…\)/);
  }, 120_000);

  it('webhooks create prints the endpoint and its secret once; webhooks test sends webhook.test', async () => {
    const product = JSON.parse((await cli(['products', 'create', '--name', 'Hooks', '--json'])).stdout);
    const created = await cli(['webhooks', 'create', '--product', product.id, '--mode', 'live', '--url', 'https://93.184.216.34/hook', '--events', 'entry.invited,entry.redeemed', '--json'], { QUEUE_PREFIX: stack.config.QUEUE_PREFIX });
    expect(created).toMatchObject({ code: 0, stderr: '' });
    const endpoint = JSON.parse(created.stdout);
    expect(endpoint).toEqual({ id: expect.stringMatching(/^we_/), secret: expect.stringMatching(/^whsec_/) });
    const [row] = await stack.db.query('SELECT mode, url, events, signature_format FROM webhook_endpoints WHERE id = $1', [endpoint.id]);
    expect(row).toEqual({ mode: 'live', url: 'https://93.184.216.34/hook', events: ['entry.invited', 'entry.redeemed'], signature_format: 'service' });
    const tested = await cli(['webhooks', 'test', '--endpoint', endpoint.id, '--json'], { QUEUE_PREFIX: stack.config.QUEUE_PREFIX });
    expect(tested.code).toBe(0);
    const { eventId } = JSON.parse(tested.stdout);
    expect((await stack.db.query('SELECT type FROM events WHERE id = $1', [eventId]))[0].type).toBe('webhook.test');
    for (const [args, message] of [
      [['--url', 'https://127.0.0.1/hook'], /public address/],
      [['--url', 'http://93.184.216.34/hook'], /https/],
      [['--url', 'https://93.184.216.34/hook', '--events', 'entry.nothing'], /unknown: entry.nothing/],
    ] as const) {
      const result = await cli(['webhooks', 'create', '--product', product.id, '--mode', 'live', ...args]);
      expect([result.code, result.stdout]).toEqual([1, '']);
      expect(result.stderr).toMatch(message);
    }
  });

  it('secrets reencrypt seals every stored secret again with the first key of the ring, after which the old key can go', async () => {
    const product = JSON.parse((await cli(['products', 'create', '--name', 'Rotation', '--json'])).stdout);
    const endpoint = JSON.parse((await cli(['webhooks', 'create', '--product', product.id, '--mode', 'live', '--url', 'https://93.184.216.34/rotate', '--json'])).stdout);
    const hook = await stack.api.get(LoginHooksService).create({ productId: product.id, mode: 'live' }, { provider: 'kratos', failOpen: false });
    const next = Buffer.alloc(32, 9).toString('base64');
    const sealed = async () => ({
      endpoint: (await stack.db.query('SELECT secret FROM webhook_endpoints WHERE id = $1', [endpoint.id]))[0].secret as Buffer,
      hook: (await stack.db.query('SELECT secret FROM login_hooks WHERE id = $1', [hook.id]))[0].secret as Buffer,
    });
    const before = await sealed();

    // Without the key that sealed them, nothing is changed and the command says what to do.
    const lost = await cli(['secrets', 'reencrypt', '--json'], { ENCRYPTION_KEY: next });
    expect([lost.code, lost.stdout]).toEqual([1, '']);
    expect(lost.stderr).toContain('put the key that sealed them back in the ring');
    expect(lost.stderr).not.toContain(endpoint.secret);
    expect(await sealed()).toEqual(before);

    const ring = `${next},${DEVELOPMENT_ENCRYPTION_KEY}`;
    const done = await cli(['secrets', 'reencrypt', '--json'], { ENCRYPTION_KEY: ring });
    expect(done).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(done.stdout).resealed).toBeGreaterThanOrEqual(2);
    const again = await cli(['secrets', 'reencrypt', '--json'], { ENCRYPTION_KEY: ring });
    expect(JSON.parse(again.stdout)).toEqual({ resealed: 0, current: expect.any(Number) });

    // The new key alone opens them, to the same secrets.
    const after = await sealed();
    expect(new SecretBox([Buffer.from(next, 'base64')]).open(after.endpoint)).toBe(endpoint.secret);
    expect(new SecretBox([Buffer.from(next, 'base64')], LOGIN_HOOK_SECRETS).open(after.hook)).toBe(hook.secret);
  });

  it('webhooks create --signature standard makes a Standard Webhooks endpoint with a secret its libraries take; other values are refused with the usage', async () => {
    const product = JSON.parse((await cli(['products', 'create', '--name', 'Standard', '--json'])).stdout);
    const create = (...args: string[]) => cli(['webhooks', 'create', '--product', product.id, '--mode', 'test', '--url', 'https://93.184.216.34/hook', ...args]);
    const created = await create('--signature', 'standard', '--json');
    expect(created).toMatchObject({ code: 0, stderr: '' });
    const endpoint = JSON.parse(created.stdout);
    expect(endpoint).toEqual({ id: expect.stringMatching(/^we_/), secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/) });
    expect(() => new Webhook(endpoint.secret)).not.toThrow();
    expect((await stack.db.query('SELECT signature_format FROM webhook_endpoints WHERE id = $1', [endpoint.id]))[0].signature_format).toBe('standard');
    const ours = JSON.parse((await create('--signature', 'service', '--json')).stdout);
    expect((await stack.db.query('SELECT signature_format FROM webhook_endpoints WHERE id = $1', [ours.id]))[0].signature_format).toBe('service');

    for (const value of ['stripe', 'Standard', '']) {
      const refused = await create('--signature', value);
      expect([refused.code, refused.stdout]).toEqual([1, '']);
      expect(refused.stderr).toContain('--signature must be service or standard.');
      expect(refused.stderr).toContain('Usage: npm run --silent cli -- webhooks create');
    }
    expect(await stack.db.query('SELECT count(*)::int AS n FROM webhook_endpoints WHERE product_id = $1', [product.id])).toEqual([{ n: 2 }]);
    expect((await cli(['webhooks', 'create', '--help'])).stdout).toMatch(/--signature <service\|standard>\s+how deliveries are signed/);
  });

  it('keys are stored only as hashes', async () => {
    const product = JSON.parse((await cli(['products', 'create', '--name', 'Hashes', '--json'])).stdout);
    const rows: { hint: string; hash: Buffer; kind: string }[] = await stack.db.query('SELECT hint, hash, kind FROM api_keys WHERE product_id = $1', [product.id]);
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(product.keys.live.secret);
    expect(dump).not.toContain(product.keys.test.secret);
  });

  it('users create --operator makes a Bull Board operator, with a team or none; --help shows the flag', async () => {
    const board = async (email: string) => {
      const { cookie } = await logIn(stack, email, 'an operator password');
      return (await stack.request({ method: 'GET', url: '/admin/queues/api/queues', headers: { cookie } })).status;
    };
    const operator = await cli(['users', 'create', '--email', 'ops@example.com', '--password', 'an operator password', '--operator', '--json']);
    expect(operator).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(operator.stdout)).toEqual({ id: expect.stringMatching(/^usr_/), created: true, operator: true });
    expect(await board('ops@example.com')).toBe(200);
    expect(await stack.db.query(`SELECT count(*)::int AS n FROM team_members t JOIN dashboard_users u ON u.id = t.user_id WHERE u.email = 'ops@example.com'`)).toEqual([{ n: 0 }]);

    const product = JSON.parse((await cli(['products', 'create', '--name', 'Ops', '--json'])).stdout);
    const member = await cli(['users', 'create', '--email', 'member@example.com', '--password', 'an operator password', '--product', product.id, '--json']);
    expect(JSON.parse(member.stdout)).toMatchObject({ created: true, operator: false });
    expect(await board('member@example.com')).toBe(404);
    // The flag on an existing user makes them an operator and keeps their team.
    const promoted = await cli(['users', 'create', '--email', 'member@example.com', '--password', 'whatever password', '--product', product.id, '--operator', '--json']);
    expect(JSON.parse(promoted.stdout)).toMatchObject({ created: false, operator: true });
    expect(await board('member@example.com')).toBe(200);

    const teamless = await cli(['users', 'create', '--email', 'nobody@example.com', '--password', 'an operator password']);
    expect([teamless.code, teamless.stdout]).toEqual([1, '']);
    expect(teamless.stderr).toMatch(/--product is required/);
    expect(teamless.stderr).toContain('--operator');

    const help = await cli(['--help']);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toMatch(/users create --email E --password P .*--operator/);
  });

  const COMMANDS: [string[], string[]][] = [
    [['migrate'], []],
    [['products', 'create'], ['--name <N>', '--invite-url <U>', '--signup-url <U>', '--referral-places <K>']],
    [['products', 'update'], ['--product <ID>', '--referral-protection <off|standard|strict>', '--velocity-limit <N>', '--waiting-for <confirmed|invited|redeemed>', '--blocked-domains <D1,D2>', '--challenge-mode <off|invisible|required>']],
    [['keys', 'create'], ['--product <ID>', '--mode <live|test>']],
    [['keys', 'revoke'], ['--key <sk_…|pk_…>', '--pair']],
    [['webhooks', 'create'], ['--product <ID>', '--mode <live|test>', '--url <U>', '--events <t1,t2>', '--signature <service|standard>']],
    [['webhooks', 'test'], ['--endpoint <ID>']],
    [['entries', 'import'], ['FILE', '--product <ID>', '--mode <live|test>', '--dry-run', '--mapping <JSON>', '--state <confirmed|pending>', '--confirmation-mails', '--events']],
    [['users', 'create'], ['--email <E>', '--password <P>', '--product <ID>', '--operator']],
    [['demo'], ['--keys-file <F>']],
    [['releases', 'list'], ['--product <ID>', '--mode <live|test>']],
    [['releases', 'create'], ['--product <ID>', '--mode <live|test>', '--count <N>', '--pattern <CRON>', '--time-zone <TZ>', '--paused']],
    [['releases', 'update'], ['--release <ID>', '--count <N>', '--pattern <CRON>', '--time-zone <TZ>', '--pause', '--resume']],
    [['releases', 'run'], ['--release <ID>']],
    [['releases', 'runs'], ['--release <ID>', '--limit <N>']],
    [['releases', 'delete'], ['--release <ID>']],
  ];

  // The commands of these tests run side by side: each is a process that spends most of its time starting.
  it('releases create, list, update (pause, resume), run, runs and delete, as the API does; a bad schedule is refused', async () => {
    const env = { QUEUE_PREFIX: stack.config.QUEUE_PREFIX };
    const product = JSON.parse((await cli(['products', 'create', '--name', 'Waves', '--json'])).stdout);
    expect(JSON.parse((await cli(['products', 'update', '--product', product.id, '--capacity', '3', '--json'])).stdout)).toMatchObject({ capacity: 3 });
    expect(JSON.parse((await cli(['products', 'update', '--product', product.id, '--mail-quota-hourly', '50', '--mail-quota-daily', '', '--json'])).stdout)).toMatchObject({
      mailQuotaHourly: 50,
      mailQuotaDaily: null,
    });
    expect((await cli(['products', 'update', '--product', product.id, '--mail-quota-daily', '0'])).stderr).toMatch(/--mail-quota-daily: The daily mail quota must be a whole number/);
    await cli(['products', 'update', '--product', product.id, '--mail-quota-hourly', '']);
    expect((await cli(['products', 'update', '--product', product.id, '--capacity', '0'])).stderr).toMatch(/--capacity: The capacity must be a whole number from 1/);
    const refused = await cli(['releases', 'create', '--product', product.id, '--mode', 'live', '--count', '10', '--pattern', '0 9 * *', '--time-zone', 'Europe/Berlin'], env);
    expect([refused.code, refused.stdout]).toEqual([1, '']);
    expect(refused.stderr).toMatch(/five fields/);
    const made = await cli(['releases', 'create', '--product', product.id, '--mode', 'live', '--count', '10', '--pattern', '0 9 * * 1', '--time-zone', 'Europe/Berlin', '--json'], env);
    expect(made).toMatchObject({ code: 0, stderr: '' });
    const release = JSON.parse(made.stdout);
    expect(release).toMatchObject({ id: expect.stringMatching(/^rel_/), count: 10, paused: false, nextRunLocal: expect.stringMatching(/T09:00:00\+0[12]:00$/) });
    const listed = await cli(['releases', 'list', '--product', product.id, '--mode', 'live'], env);
    expect(listed.stdout).toContain(`${release.id}  invite 10 every "0 9 * * 1" in Europe/Berlin, next ${release.nextRunLocal}`);
    expect(JSON.parse((await cli(['releases', 'update', '--release', release.id, '--pause', '--json'], env)).stdout)).toMatchObject({ paused: true, nextRunAt: null });
    expect(JSON.parse((await cli(['releases', 'update', '--release', release.id, '--resume', '--count', '5', '--json'], env)).stdout)).toMatchObject({ paused: false, count: 5 });
    const run = await cli(['releases', 'run', '--release', release.id, '--json'], env);
    expect(JSON.parse(run.stdout)).toMatchObject({ asked: 5, invited: 0, failed: 0 });
    expect(JSON.parse((await cli(['releases', 'runs', '--release', release.id, '--json'], env)).stdout).data).toHaveLength(1);
    expect(await cli(['releases', 'delete', '--release', release.id], env)).toMatchObject({ code: 0, stdout: `release ${release.id} deleted\n` });
    expect((await cli(['releases', 'run', '--release', release.id], env)).stderr).toMatch(/No release/);
  });

  it('each command’s --help shows its usage and flags, --json too, exits 0 and runs nothing', async () => {
    const results = await Promise.all(COMMANDS.map(([words]) => cli([...words, '--help'])));
    COMMANDS.forEach(([words, flags], index) => {
      const { code, stdout, stderr } = results[index];
      expect({ words, code, stderr }).toEqual({ words, code: 0, stderr: '' });
      expect(stdout).toContain(`Usage: npm run --silent cli -- ${words.join(' ')} `);
      for (const flag of [...flags, '--json']) expect({ words, has: stdout.includes(flag) }).toEqual({ words, has: true });
    });
    expect(await stack.db.query(`SELECT count(*)::int AS n FROM products WHERE name = 'Demo'`)).toEqual([{ n: 0 }]);
  });

  it('--help and -h of the program list every command; a group lists its own', async () => {
    for (const help of ['--help', '-h']) {
      const result = await cli([help]);
      expect(result).toMatchObject({ code: 0, stderr: '' });
      for (const [words] of COMMANDS) expect(result.stdout).toContain(`\n  ${words.join(' ')} `);
    }
    const group = await cli(['webhooks', '-h']);
    expect(group).toMatchObject({ code: 0, stderr: '' });
    expect(group.stdout).toMatch(/\n {2}webhooks create --product ID --mode live\|test --url U \[--events t1,t2\] \[--signature service\|standard\]/);
    expect(group.stdout).toMatch(/\n {2}webhooks test --endpoint ID/);
  });

  const FAILURES: [string[], RegExp][] = [
    [['products', 'create', '--json'], /--name is required/],
    [['products', 'create', '--name', 'X', '--invite-url', 'ftp://x'], /--invite-url must be an http\(s\) URL/],
    [['products', 'create', '--name', 'X', '--referral-places=-1'], /--referral-places must be a whole number/],
    [['keys', 'create', '--product', 'prod_nope', '--mode', 'live'], /No product prod_nope/],
    [['keys', 'create', '--product', 'prod_nope', '--mode', 'staging'], /--mode must be live or test/],
    [['keys', 'revoke', '--key', 'sk_live_nope'], /No such secret key/],
    [['entries', 'import', '--product', 'prod_nope', '--mode', 'test'], /missing required argument 'FILE'/],
    [['entries', 'import', 'list.csv', '--mode', 'test'], /--product is required/],
    [['entries', 'import', '/nonexistent/list.csv', '--product', 'prod_nope', '--mode', 'test'], /No file \/nonexistent\/list.csv/],
    [['entries', 'import', __filename, '--product', 'prod_nope', '--mode', 'test', '--mapping', '{"Mail": "address"}'], /--mapping: .*expected one of email/],
    [['entries', 'import', __filename, '--product', 'prod_nope', '--mode', 'test', '--state', 'invited'], /--state: .*expected confirmed or pending/],
    [['entries', 'import', __filename, '--product', 'prod_nope', '--mode', 'test'], /No product prod_nope/],
    [['frobnicate'], /Unknown command: frobnicate/],
    [['keys', 'frobnicate'], /Unknown command: keys frobnicate/],
    [[], /No command given/],
  ];

  it('bad commands and flags fail with a message on stderr and nothing on stdout', async () => {
    const results = await Promise.all(FAILURES.map(([args]) => cli(args)));
    FAILURES.forEach(([args, message], index) => {
      const { code, stdout, stderr } = results[index];
      expect({ args, failed: code !== 0, stdout }).toEqual({ args, failed: true, stdout: '' });
      expect(stderr).toMatch(message);
    });
  });

  it('products update sets the referral protection and its thresholds by the settings form\'s rules; a new product is off', async () => {
    const created = JSON.parse((await cli(['products', 'create', '--name', 'Guarded', '--json'])).stdout);
    const product = () => stack.db.query(`SELECT referral_protection, referral_rules FROM products WHERE id = $1`, [created.id]);
    expect(await product()).toEqual([{ referral_protection: 'off', referral_rules: {} }]);
    const result = await cli(['products', 'update', '--product', created.id, '--referral-protection', 'strict', '--velocity-limit', '4', '--waiting-for', 'invited', '--blocked-domains', 'spam.example, @junk.example', '--json']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(result.stdout)).toEqual({
      id: created.id,
      referralPlaces: 1,
      referralProtection: 'strict',
      referralRules: { velocityLimit: 4, waitingFor: 'invited', blockedDomains: ['spam.example', 'junk.example'] },
      leaderboard: 'off',
      leaderboardSize: 10,
      milestones: [],
      claimWindowDays: null,
      claimReminderHours: null,
      claimExpiry: 'back_in_line',
    });
    expect(await cli(['products', 'update', '--product', created.id, '--velocity-limit', '', '--json'])).toMatchObject({ code: 0 });
    expect((await product())[0].referral_rules).toEqual({ waitingFor: 'invited', blockedDomains: ['spam.example', 'junk.example'] });
    const signals = await cli(['products', 'update', '--product', created.id, '--burst-per-hour', '20', '--signup-honeypot', 'on', '--signup-min-fill-seconds', '3', '--json']);
    expect(JSON.parse(signals.stdout)).toMatchObject({ referralRules: { burstPerHour: 20 }, signupHoneypot: true, signupMinFillSeconds: 3 });

    for (const [args, message] of [
      [['--referral-protection', 'paranoid'], /--referral-protection: Referral protection must be off, standard or strict/],
      [['--velocity-limit', '0'], /--velocity-limit: The referrals per network must be a whole number from 1/],
      [['--signup-honeypot', 'yes'], /--signup-honeypot: The honeypot must be off or on/],
      [['--signup-min-fill-seconds', '3601'], /--signup-min-fill-seconds: The minimum fill time must be a whole number of seconds from 0 to 3600/],
      [['--blocked-domains', 'not a domain!'], /--blocked-domains: The blocked domains must be domains like example.com/],
      [[], /Name at least one setting to change/],
    ] as [string[], RegExp][]) {
      const refused = await cli(['products', 'update', '--product', created.id, ...args]);
      expect({ args, failed: refused.code !== 0, stdout: refused.stdout }).toEqual({ args, failed: true, stdout: '' });
      expect(refused.stderr).toMatch(message);
    }
    expect((await cli(['products', 'update', '--product', 'prod_nosuch', '--waiting-days', '2'])).stderr).toMatch(/No product prod_nosuch/);
  }, 60_000);

  it('products update sets the claim window, its reminder and its outcome, and refuses a reminder outside the window', async () => {
    const created = JSON.parse((await cli(['products', 'create', '--name', 'Windowed', '--json'])).stdout);
    const result = await cli(['products', 'update', '--product', created.id, '--claim-window-days', '7', '--claim-reminder-hours', '24', '--claim-expiry', 'end_of_line', '--json']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(result.stdout)).toMatchObject({ claimWindowDays: 7, claimReminderHours: 24, claimExpiry: 'end_of_line' });
    for (const [args, message] of [
      [['--claim-window-days', '31'], /--claim-window-days: The claim window must be a whole number from 1 to 30/],
      [['--claim-expiry', 'forget'], /--claim-expiry: At the end of the claim window/],
      [['--claim-reminder-hours', '168'], /The reminder must come within the claim window: fewer than 168 hours/],
    ] as [string[], RegExp][]) {
      const refused = await cli(['products', 'update', '--product', created.id, ...args]);
      expect({ args, failed: refused.code !== 0, stdout: refused.stdout }).toEqual({ args, failed: true, stdout: '' });
      expect(refused.stderr).toMatch(message);
    }
    expect(await cli(['products', 'update', '--product', created.id, '--claim-window-days', '', '--claim-reminder-hours', '', '--json'])).toMatchObject({ code: 0 });
    expect(await stack.db.query(`SELECT claim_window_days, claim_reminder_hours, claim_expiry FROM products WHERE id = $1`, [created.id])).toEqual([
      { claim_window_days: null, claim_reminder_hours: null, claim_expiry: 'end_of_line' },
    ]);
  }, 60_000);

  it('products update sets the default language, and refuses one the service does not speak', async () => {
    const created = JSON.parse((await cli(['products', 'create', '--name', 'Sprachen', '--json'])).stdout);
    const [set, refused] = await Promise.all([
      cli(['products', 'update', '--product', created.id, '--default-locale', 'de', '--json']),
      cli(['products', 'update', '--product', created.id, '--default-locale', 'nl']),
    ]);
    expect(set).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(set.stdout)).toMatchObject({ id: created.id, defaultLocale: 'de' });
    expect({ failed: refused.code !== 0, stdout: refused.stdout }).toEqual({ failed: true, stdout: '' });
    expect(refused.stderr).toMatch(/--default-locale: The default language must be one of en, de, fr, es/);
    expect(await stack.db.query(`SELECT default_locale FROM products WHERE id = $1`, [created.id])).toEqual([{ default_locale: 'de' }]);
  }, 60_000);

  it('products update sets the sign-up challenge and its difficulty, and refuses a mode or difficulty the settings form refuses', async () => {
    const created = JSON.parse((await cli(['products', 'create', '--name', 'Challenged', '--json'])).stdout);
    const [set, badMode, badDifficulty] = await Promise.all([
      cli(['products', 'update', '--product', created.id, '--challenge-mode', 'required', '--challenge-difficulty', '20000', '--json']),
      cli(['products', 'update', '--product', created.id, '--challenge-mode', 'captcha']),
      cli(['products', 'update', '--product', created.id, '--challenge-difficulty', '10']),
    ]);
    expect(JSON.parse(set.stdout)).toMatchObject({ id: created.id, challengeMode: 'required', challengeDifficulty: 20000 });
    expect(badMode.stderr).toMatch(/--challenge-mode: The sign-up challenge must be off, invisible or required/);
    expect(badDifficulty.stderr).toMatch(/--challenge-difficulty: The challenge difficulty must be a whole number from 1000 to 5000000/);
    expect(await stack.db.query(`SELECT challenge_mode, challenge_difficulty FROM products WHERE id = $1`, [created.id])).toEqual([{ challenge_mode: 'required', challenge_difficulty: 20000 }]);
  }, 60_000);

  it('products create refuses a name the dashboard refuses (control characters, empty, over 100 characters) and trims it as the dashboard does', async () => {
    const refused: [string, RegExp][] = [
      ['Acme\r\nBcc: all@example.com', /--name cannot hold control characters/],
      ['Tab\there', /--name cannot hold control characters/],
      ['   ', /--name cannot be empty/],
      ['x'.repeat(101), /--name is at most 100 characters/],
    ];
    for (const [name, message] of refused) {
      const { code, stdout, stderr } = await cli(['products', 'create', '--name', name]);
      expect({ name, failed: code !== 0, stdout }).toEqual({ name, failed: true, stdout: '' });
      expect(stderr).toMatch(message);
    }
    expect(await stack.db.query(`SELECT count(*)::int AS n FROM products WHERE name ~ '[[:cntrl:]]' OR length(name) > 100 OR trim(name) = ''`)).toEqual([{ n: 0 }]);
    const created = JSON.parse((await cli(['products', 'create', '--name', '  Trimmed  ', '--json'])).stdout);
    expect(await stack.db.query('SELECT name FROM products WHERE id = $1', [created.id])).toEqual([{ name: 'Trimmed' }]);
  });

  it('bad configuration stops it with a message naming the variable', async () => {
    const result = await cli(['products', 'create', '--name', 'X'], { RATE_LIMIT_API: 'lots' });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('RATE_LIMIT_API: expected requests per window like 100/1s');
  });

  it('migrate creates a missing database, applies the migrations, and is safe to run again', async () => {
    const name = `${stack.config.DATABASE_URL.split('/').pop()}_m`;
    const url = databaseUrl(name);
    try {
      const first = await cli(['migrate', '--json'], { DATABASE_URL: url });
      expect(first.code).toBe(0);
      expect(JSON.parse(first.stdout).applied.length).toBeGreaterThan(0);
      const again = await cli(['migrate', '--json'], { DATABASE_URL: url });
      expect(JSON.parse(again.stdout)).toEqual({ applied: [] });
    } finally {
      await admin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    }
  });

  it('demo creates the demo product and its dashboard user once and shows the same keys on later runs', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'waitlist-demo-')), 'keys.json');
    const first = JSON.parse((await cli(['demo', '--keys-file', file, '--json'])).stdout);
    const second = JSON.parse((await cli(['demo', '--keys-file', file, '--json'])).stdout);
    expect(second).toEqual(first);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(first);
    const [{ count }] = await stack.db.query(`SELECT count(*)::int AS count FROM products WHERE id = $1`, [first.id]);
    expect(count).toBe(1);
    const { response } = await logIn(stack, first.dashboard.email, first.dashboard.password);
    expect([response.status, response.headers.location]).toEqual([303, '/dashboard']);
  });
});
