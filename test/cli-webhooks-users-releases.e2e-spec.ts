import { Stack } from './support/stack';
import { logIn } from './support/dashboard';
import { Webhook } from 'standardwebhooks';
import { DEVELOPMENT_ENCRYPTION_KEY, SecretBox } from '@app/shared';
import { LOGIN_HOOK_SECRETS, LoginHooksService } from '../apps/api/src/login-hooks/login-hooks.service';
import { CLI_TEST_TIMEOUT, cliStack, runCli } from './support/cli';

jest.setTimeout(CLI_TEST_TIMEOUT);

describe('operator CLI: webhooks, secrets, users and releases', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await cliStack();
  });
  afterAll(() => stack.stop());

  const cli = (args: string[], env?: Record<string, string>) => runCli(stack, args, env);

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
});
