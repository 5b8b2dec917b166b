import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { admin, databaseUrl } from './support/databases';
import { Stack } from './support/stack';
import { logIn } from './support/dashboard';
import { CLI_TEST_TIMEOUT, cliStack, runCli } from './support/cli';

jest.setTimeout(CLI_TEST_TIMEOUT);

describe('operator CLI: help, failures, configuration, migrate and demo', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await cliStack();
  });
  afterAll(() => stack.stop());

  const cli = (args: string[], env?: Record<string, string>) => runCli(stack, args, env);

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
