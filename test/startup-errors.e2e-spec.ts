import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, Server } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { scripts } from '../package.json';
import { EmbeddedServers, startEmbeddedServers } from '../scripts/embedded/start-servers';
import { closedPort } from './support/closed-port';
import { Stack } from './support/stack';
import { freePort, ThrowawayRedis } from './support/throwaway-redis';

const ROOT = join(__dirname, '..');
type EntryPoint = 'npm start' | 'start:api' | 'start:mailer' | 'start:webhooks';
const ENTRY_POINTS: EntryPoint[] = ['npm start', 'start:api', 'start:mailer', 'start:webhooks'];

/** An entry point as its script runs it (npm start's script is node scripts/start.js), with only `env`. */
async function run(entry: EntryPoint, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const [node, ...args] = entry === 'npm start' ? ['node', 'scripts/start.js'] : scripts[entry].split(' ');
  try {
    const { stdout, stderr } = await promisify(execFile)(node, args, { cwd: ROOT, env: { PATH: process.env.PATH!, ...env }, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
    return { code, stdout, stderr };
  }
}

/** Each misconfiguration a newcomer or an operator makes, answered in one sentence with a non-zero exit. */
describe('starting with a misconfiguration', () => {
  let stack: Stack;
  let postgres: EmbeddedServers;
  let guarded: ThrowawayRedis;
  let taken: Server;
  let takenPort: number;
  /** PostgreSQL with password authentication (the machine's may trust every local user). */
  let passwordServer: URL;
  const dataDir = join(ROOT, '.data', `startup-test-${randomBytes(4).toString('hex')}`);
  const oldNode = join(dataDir, 'old-node.js');

  beforeAll(async () => {
    [stack, postgres, guarded] = await Promise.all([
      Stack.start({ apps: [] }),
      startEmbeddedServers({ dataDir, postgres: true, redis: false, persistent: false }),
      ThrowawayRedis.start({ password: 'a-redis-password' }),
    ]);
    passwordServer = new URL(postgres.databaseUrl!);
    passwordServer.pathname = '/postgres';
    const admin = new Client({ connectionString: passwordServer.toString() });
    await admin.connect();
    await admin.query(`CREATE ROLE limited LOGIN PASSWORD 'limited-password' NOCREATEDB`).finally(() => admin.end());
    takenPort = await freePort();
    // Whoever connects (npm start asks the api's port whether it is ready) is let go at once.
    taken = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => taken.listen(takenPort, '0.0.0.0', resolve));
    // What process.versions says on a Node.js older than the engines field (20.19).
    writeFileSync(oldNode, `Object.defineProperty(process, 'versions', { value: { ...process.versions, node: '20.18.0' } });\n`);
  }, 60_000);
  afterAll(async () => {
    await new Promise((resolve) => taken?.close(resolve));
    await Promise.all([stack?.stop(), postgres?.stop(), guarded?.down()]);
    rmSync(dataDir, { recursive: true, force: true });
  });

  const at = (url: URL, user: string, database: string) => {
    const copy = new URL(url);
    copy.username = user;
    copy.password = user === 'limited' ? 'limited-password' : 'not-the-password';
    copy.pathname = `/${database}`;
    return copy.toString();
  };
  const good = () => ({ DATABASE_URL: stack.config.DATABASE_URL, REDIS_URL: stack.config.REDIS_URL, QUEUE_PREFIX: stack.config.QUEUE_PREFIX, EMBEDDED_DATA_DIR: dataDir });

  const cases: { name: string; env: () => Promise<Record<string, string>>; sentence: (entry: EntryPoint) => RegExp }[] = [
    {
      name: 'a PostgreSQL that cannot be reached',
      env: async () => ({ ...good(), DATABASE_URL: `${(await closedPort()).replace('http', 'postgres')}/waitlist` }),
      sentence: () => /^PostgreSQL at 127\.0\.0\.1:\d+ cannot be reached \(connection refused\): start it, or set DATABASE_URL to the PostgreSQL you run/,
    },
    {
      name: 'a wrong PostgreSQL password',
      env: async () => ({ ...good(), DATABASE_URL: at(passwordServer, 'postgres', 'postgres') }),
      sentence: () => /^PostgreSQL at 127\.0\.0\.1:\d+ refused the user postgres \(.*password.*\): check the user and password in DATABASE_URL\.$/,
    },
    {
      name: 'a database that is missing and that its user may not create',
      env: async () => ({ ...good(), DATABASE_URL: at(passwordServer, 'limited', 'missing_db') }),
      sentence: (entry) =>
        entry === 'npm start'
          ? /^The database missing_db does not exist on 127\.0\.0\.1:\d+ and the user limited may not create it: create it \(CREATE DATABASE "missing_db" OWNER "limited"\), or set DATABASE_URL to a user that may\.$/
          : /^The database missing_db does not exist on 127\.0\.0\.1:\d+: npm run migrate creates it and applies the migrations/,
    },
    {
      name: 'a Redis that cannot be reached',
      env: async () => ({ ...good(), REDIS_URL: (await closedPort()).replace('http', 'redis') }),
      sentence: () => /^Redis at 127\.0\.0\.1:\d+ cannot be reached \(connection refused\): start it \(redis-server\), or set REDIS_URL to the Redis you run/,
    },
    {
      name: 'a Redis that asks for a password',
      env: async () => ({ ...good(), REDIS_URL: guarded.url }),
      sentence: () => /^Redis at 127\.0\.0\.1:\d+ asks for a password: put it in REDIS_URL, like redis:\/\/:password@127\.0\.0\.1:\d+\.$/,
    },
    {
      name: 'a port already in use',
      env: async () => ({ ...good(), PORT: String(takenPort), HEALTH_PORT: String(takenPort) }),
      sentence: (entry) => new RegExp(`^Port ${takenPort} is already in use by another process: stop that process, or set ${['npm start', 'start:api'].includes(entry) ? 'PORT' : 'HEALTH_PORT'} to a free port\\.$`),
    },
    {
      name: 'a Node.js older than the engines field',
      env: async () => ({ ...good(), NODE_OPTIONS: `--require ${oldNode}` }),
      sentence: () => /^Node\.js 20\.18\.0 is too old: the service needs Node\.js 20\.19 or newer/,
    },
  ];

  it('npm start without a redis-server on PATH and without REDIS_URL says what is missing and how to get it', async () => {
    // A PATH with node alone.
    const bin = join(dataDir, 'bin');
    mkdirSync(bin, { recursive: true });
    symlinkSync(process.execPath, join(bin, 'node'));
    const result = await promisify(execFile)('node', ['scripts/start.js'], { cwd: ROOT, env: { PATH: bin, EMBEDDED_DATA_DIR: join(dataDir, 'no-redis') } }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(result.code).not.toBe(0);
    expect(result.stderr.trim()).toBe(
      [
        'Redis is needed and no redis-server was found on PATH. Install it, or set REDIS_URL to a Redis you run:',
        '  Debian or Ubuntu:  sudo apt-get install redis-server',
        '  macOS:             brew install redis',
        '  Docker:            docker run -d -p 6379:6379 redis:7, then REDIS_URL=redis://localhost:6379',
      ].join('\n'),
    );
  });

  it('npm start that must build but finds no npm on PATH says so, rather than exiting in silence', async () => {
    // A checkout with nothing built, so that npm start's first step is the build.
    const checkout = join(dataDir, 'unbuilt');
    cpSync(join(ROOT, 'scripts'), join(checkout, 'scripts'), { recursive: true });
    cpSync(join(ROOT, 'package.json'), join(checkout, 'package.json'));
    for (const folder of ['apps', 'libs']) mkdirSync(join(checkout, folder));
    const bin = join(dataDir, 'node-only');
    mkdirSync(bin, { recursive: true });
    symlinkSync(process.execPath, join(bin, 'node'));
    const result = await promisify(execFile)('node', ['scripts/start.js'], { cwd: checkout, env: { PATH: bin } }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(result.code).not.toBe(0);
    expect(result.stderr.trim()).toBe('npm run --silent build:js could not run (ENOENT): check that npm is on PATH.');
  });

  it.each(cases)('$name: each entry point says it in one sentence, without a stack trace, and exits non-zero', async ({ env, sentence }) => {
    const variables = await env();
    for (const entry of ENTRY_POINTS) {
      const result = await run(entry, variables);
      const said = result.stderr.trim();
      expect({ entry, code: result.code === 0 ? 0 : 'non-zero' }).toEqual({ entry, code: 'non-zero' });
      expect({ entry, said }).toEqual({ entry, said: expect.stringMatching(sentence(entry)) });
      expect({ entry, lines: said.split('\n').length }).toEqual({ entry, lines: 1 });
      expect(`${result.stdout}${result.stderr}`).not.toMatch(/^\s+at /m);
    }
  }, 120_000);
});
