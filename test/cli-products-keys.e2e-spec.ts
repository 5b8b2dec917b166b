import { bearer } from './support/flows';
import { Stack } from './support/stack';
import { CLI_TEST_TIMEOUT, cliStack, runCli } from './support/cli';

jest.setTimeout(CLI_TEST_TIMEOUT);

describe('operator CLI: products and keys', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await cliStack();
  });
  afterAll(() => stack.stop());

  const cli = (args: string[], env?: Record<string, string>) => runCli(stack, args, env);

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

  it('keys are stored only as hashes', async () => {
    const product = JSON.parse((await cli(['products', 'create', '--name', 'Hashes', '--json'])).stdout);
    const rows: { hint: string; hash: Buffer; kind: string }[] = await stack.db.query('SELECT hint, hash, kind FROM api_keys WHERE product_id = $1', [product.id]);
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(product.keys.live.secret);
    expect(dump).not.toContain(product.keys.test.secret);
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
});
