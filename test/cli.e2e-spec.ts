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
        env: { PATH: process.env.PATH, DATABASE_URL: stack.config.DATABASE_URL, LOG_LEVEL: 'silent', ...env },
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
    [['keys', 'create'], ['--product <ID>', '--mode <live|test>']],
    [['keys', 'revoke'], ['--key <sk_…>']],
    [['webhooks', 'create'], ['--product <ID>', '--mode <live|test>', '--url <U>', '--events <t1,t2>', '--signature <service|standard>']],
    [['webhooks', 'test'], ['--endpoint <ID>']],
    [['users', 'create'], ['--email <E>', '--password <P>', '--product <ID>', '--operator']],
    [['demo'], ['--keys-file <F>']],
  ];

  // The commands of these tests run side by side: each is a process that spends most of its time starting.
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
