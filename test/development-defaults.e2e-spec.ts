import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { scripts } from '../package.json';
import { AppProcess } from './support/processes';
import { AppName, Stack } from './support/stack';
import { waitFor } from './support/wait';

const ROOT = join(__dirname, '..');
const KEY = Buffer.alloc(32, 3).toString('base64');
const INBOX = 'development inbox at /dev/mail, mails not sent: set SMTP_URL';
const ENCRYPTION = 'development encryption key, public in the source: set ENCRYPTION_KEY (openssl rand -base64 32)';
const warning = (...defaults: string[]) => `development defaults in use (NODE_ENV is not production): ${defaults.join('; ')}`;

describe('the development inbox answers only this machine', () => {
  let stack: Stack;

  beforeAll(async () => {
    // Behind one trusted proxy, so that a forwarded address counts as the client's.
    stack = await Stack.start({ apps: ['api'], env: { SMTP_URL: '', TRUST_PROXY: '1' } });
    // The inbox reads Redis, whose connection may still be opening.
    await waitFor(async () => (await stack.api.inject({ method: 'GET', url: '/readyz' })).statusCode === 200, 'the api to be ready');
  });
  afterAll(() => stack?.stop());

  const get = (url: string, remoteAddress: string, forwardedFor?: string) =>
    stack.api.inject({ method: 'GET', url, remoteAddress, headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {} });

  it('answers loopback clients, IPv4, IPv6 and IPv4 mapped in IPv6', async () => {
    for (const address of ['127.0.0.1', '127.0.0.2', '::1', '::ffff:127.0.0.1']) {
      const answer = await get('/dev/mail', address);
      expect([address, answer.statusCode, answer.body]).toEqual([address, 200, expect.stringContaining('<h1>Development inbox</h1>')]);
    }
  });

  it('answers anyone else 404, as if it did not exist, the client’s address read through the trusted proxy', async () => {
    const missing = await get('/dev/no-such-page', '198.51.100.7');
    expect(missing.statusCode).toBe(404);
    const cases: [string, string, string?][] = [
      ['/dev/mail', '198.51.100.7'],
      ['/dev/mail', '::ffff:198.51.100.7'],
      ['/dev/mail/00000000-0000-0000-0000-000000000000', '198.51.100.7'],
      // A proxy on this machine connects from 127.0.0.1: the client is the address it forwards.
      ['/dev/mail', '127.0.0.1', '198.51.100.7'],
    ];
    for (const [url, address, forwardedFor] of cases) {
      const answer = await get(url, address, forwardedFor);
      expect([url, address, answer.statusCode, answer.headers['content-type'], answer.body]).toEqual([url, address, 404, missing.headers['content-type'], missing.body]);
    }
    expect((await get('/dev/mail', '127.0.0.1', '127.0.0.1')).statusCode).toBe(200);
  });
});

describe('development defaults at start', () => {
  let stack: Stack;
  const started: AppProcess[] = [];

  beforeAll(async () => {
    stack = await Stack.start({ apps: [] });
  });
  afterAll(async () => {
    for (const app of started) await app.stop();
    await stack?.stop();
  });

  /** The app's warn lines from start to a clean stop (its whole output read). */
  async function warningsOf(name: AppName, env: Record<string, string>): Promise<string[]> {
    const app = await AppProcess.start(name, stack.config, { env: { LOG_LEVEL: 'warn', ...env }, capture: true });
    started.push(app);
    const closed = new Promise((resolve) => app.child.stdout!.once('close', resolve));
    await app.stop();
    await closed;
    const lines = app.output.join('').split('\n').filter(Boolean).map((line) => JSON.parse(line) as { level: string; app: string; msg: string });
    return lines.filter((line) => line.level === 'warn').map((line) => `${line.app}: ${line.msg}`);
  }

  it('the api names the development inbox and key in one warning line, the webhooks app the key; the mailer, whose missing mails show, says nothing', async () => {
    // One after another: three starting at once on a busy machine may miss AppProcess's bound.
    expect(await warningsOf('api', { SMTP_URL: '' })).toEqual([`api: ${warning(INBOX, ENCRYPTION)}`]);
    expect(await warningsOf('mailer', { SMTP_URL: '' })).toEqual([]);
    expect(await warningsOf('webhooks', { SMTP_URL: '' })).toEqual([`webhooks: ${warning(ENCRYPTION)}`]);
  }, 120_000);

  it('says nothing when SMTP_URL and ENCRYPTION_KEY are set', async () => {
    for (const name of ['api', 'mailer', 'webhooks'] as const) expect([name, await warningsOf(name, { ENCRYPTION_KEY: KEY })]).toEqual([name, []]);
  }, 120_000);

  it.each(['Production', 'PRODUCTION'])('NODE_ENV=%s is production: no app starts without ENCRYPTION_KEY and SMTP_URL', async (nodeEnv) => {
    for (const name of ['api', 'mailer', 'webhooks']) {
      const [node, ...args] = scripts[`start:${name}` as keyof typeof scripts].split(' ');
      const env = { PATH: process.env.PATH!, NODE_ENV: nodeEnv, DATABASE_URL: stack.config.DATABASE_URL, REDIS_URL: stack.config.REDIS_URL };
      const result = await promisify(execFile)(node, args, { cwd: ROOT, env, timeout: 30_000 }).then(
        () => ({ code: 0, stderr: '' }),
        (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
      );
      expect([name, result.code]).toEqual([name, 1]);
      expect(result.stderr).toContain('ENCRYPTION_KEY: must be set when NODE_ENV=production');
      expect(result.stderr).toContain('SMTP_URL: must be set when NODE_ENV=production');
    }
  }, 60_000);
});
