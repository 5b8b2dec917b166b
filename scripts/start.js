#!/usr/bin/env node
// npm start: the whole service for a newcomer. Compiles when the sources changed, runs an embedded
// PostgreSQL and Redis where DATABASE_URL and REDIS_URL are unset (data in .data/), applies the
// migrations, creates the demo product once, then runs api, mailer and webhooks until Ctrl-C.
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const { engines, scripts } = require('../package.json');

// Before anything that needs a newer Node.js (the apps load Nest's ES modules through require).
const [major, minor] = process.versions.node.split('.').map(Number);
const [needMajor, needMinor] = engines.node.replace(/^>=/, '').split('.').map(Number);
if (major < needMajor || (major === needMajor && minor < needMinor)) {
  console.error(`Node.js ${process.versions.node} is too old: the service needs Node.js ${engines.node.replace(/^>=/, '')} or newer; install a current Node.js 20 or later.`);
  process.exit(1);
}

const { startEmbeddedServers, EmbeddedServersError } = require('./embedded/start-servers');

const env = { LOG_LEVEL: 'warn', ...process.env };
for (const [name, value] of Object.entries(env)) if (value === '') delete env[name];
env.PUBLIC_BASE_URL ??= `http://localhost:${env.PORT || 3000}`;
// Nothing routes around a process on a developer's machine: the api need not drain before it closes.
env.SHUTDOWN_GRACE ??= '0s';
// The mailer and the webhooks app would both take it; the api's /readyz speaks for all three here.
delete env.HEALTH_PORT;
const dataDir = path.resolve(root, env.EMBEDDED_DATA_DIR ?? '.data');
const display = (folder) => path.relative(process.cwd(), folder) || '.';
/** How long the apps have to finish what they hold once asked to stop, before they are killed. */
const APPS_STOP_MS = 12_000;

let servers;
let apps = [];
let stopping;
let ready = false;

function run(command, args) {
  const result = spawnSync(command, args, { cwd: root, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (result.error) console.error(`${command} ${args.join(' ')} could not run (${result.error.code ?? result.error.message}): check that ${command} is on PATH.`);
  if (result.status !== 0) return stop(result.status ?? 1).then(() => null);
  return Promise.resolve(result.stdout);
}

/** The compiled apps in dist/ are older than a source (or missing): build them. */
function buildIsStale() {
  const built = path.join(root, 'dist/apps/api/src/main.js');
  if (!fs.existsSync(built)) return true;
  const builtAt = fs.statSync(built).mtimeMs;
  const newer = (folder) =>
    fs.readdirSync(folder, { withFileTypes: true }).some((item) => {
      const file = path.join(folder, item.name);
      if (item.isDirectory()) return item.name !== 'node_modules' && item.name !== 'dist' && newer(file);
      return /\.(ts|json)$/.test(item.name) && fs.statSync(file).mtimeMs > builtAt;
    });
  return newer(path.join(root, 'apps')) || newer(path.join(root, 'libs'));
}

async function main() {
  if (buildIsStale() && (await run('npm', ['run', '--silent', 'build:js'])) === null) return;

  const postgres = !env.DATABASE_URL;
  const redis = !env.REDIS_URL && !env.REDIS_CLUSTER_NODES;
  if (postgres || redis) {
    try {
      servers = await startEmbeddedServers({ dataDir, postgres, redis, persistent: true });
    } catch (error) {
      if (!(error instanceof EmbeddedServersError)) throw error;
      console.error(error.message);
      return stop(1);
    }
    if (postgres) env.DATABASE_URL = servers.databaseUrl;
    if (redis) env.REDIS_URL = servers.redisUrl;
  }
  const at = (url) => new URL(url).host;
  console.log(
    postgres
      ? `PostgreSQL: embedded, data in ${display(path.join(dataDir, 'postgres'))}, at ${at(env.DATABASE_URL)} (set DATABASE_URL to use your own).`
      : `PostgreSQL: ${at(env.DATABASE_URL)}, from DATABASE_URL.`,
  );
  console.log(
    redis
      ? `Redis: redis-server from PATH, data in ${display(path.join(dataDir, 'redis'))}, at ${at(env.REDIS_URL)} (set REDIS_URL to use your own).`
      : `Redis: ${env.REDIS_CLUSTER_NODES ?? at(env.REDIS_URL)}, from ${env.REDIS_CLUSTER_NODES ? 'REDIS_CLUSTER_NODES' : 'REDIS_URL'}.`,
  );

  // Once here, not in each of the three apps side by side, which would each say it. PostgreSQL is
  // checked by the migrations, which create a missing database.
  const { checkRedis } = require('../dist/libs/shared/src/startup/dependencies');
  try {
    await checkRedis({ REDIS_URL: env.REDIS_URL, REDIS_CLUSTER_NODES: env.REDIS_CLUSTER_NODES?.split(',') });
  } catch (error) {
    console.error(error.message);
    return stop(1);
  }

  const cli = path.join(root, 'dist/apps/api/src/cli/main.js');
  const migrated = await run('node', [cli, 'migrate']);
  if (migrated === null) return;
  process.stdout.write(migrated);
  fs.mkdirSync(dataDir, { recursive: true });
  const demoOutput = await run('node', [cli, 'demo', '--keys-file', path.join(dataDir, 'demo-keys.json'), '--json']);
  if (demoOutput === null) return;
  const demo = JSON.parse(demoOutput);

  // Each app as its start script runs it (the workers' heap limits are there), in a process group of
  // its own, so that a Ctrl-C reaches only this process, which stops each app once and in order.
  apps = ['api', 'mailer', 'webhooks'].map((name) => {
    const [node, ...args] = scripts[`start:${name}`].split(' ');
    const child = spawn(node, args, { cwd: root, env, stdio: ['ignore', 'inherit', 'inherit'], detached: true });
    child.on('exit', (code, signal) => {
      if (stopping) return;
      // Before it was ready the app has said why it stopped.
      if (ready) console.error(`The ${name} process stopped (${signal ?? `exit code ${code}`}); stopping the others.`);
      stop(code || 1);
    });
    return child;
  });

  if (!(await apiReady())) return;
  ready = true;
  printWelcome(demo);
}

async function apiReady() {
  const url = `http://127.0.0.1:${env.PORT || 3000}/readyz`;
  for (const started = Date.now(); Date.now() - started < 60_000; await new Promise((resolve) => setTimeout(resolve, 200))) {
    if (stopping) return false;
    const answered = await fetch(url, { signal: AbortSignal.timeout(2000) }).then((answer) => answer.ok, () => false);
    if (answered) return !stopping;
  }
  console.error(`The api did not answer ${url} within a minute; stopping.`);
  await stop(1);
  return false;
}

function printWelcome(demo) {
  const base = env.PUBLIC_BASE_URL.replace(/\/+$/, '');
  const pk = demo.keys.test.publishable;
  console.log(`
Waitlist is ready: api, mailer and webhooks. Ctrl-C stops it; npm run reset starts afresh.

  API                ${base}/api/v1   (Authorization: Bearer <secret key>)
  Demo product       ${demo.id}   (keys kept in ${display(path.join(dataDir, 'demo-keys.json'))})
    test secret      ${demo.keys.test.secret}
    test publishable ${pk}
    live secret      ${demo.keys.live.secret}
    live publishable ${demo.keys.live.publishable}
  Sign-up page       ${base}/w/${pk}
  Dashboard          ${base}${demo.dashboard.overview}   (${demo.dashboard.email} / ${demo.dashboard.password})
${env.SMTP_URL ? '' : `  Development inbox  ${base}/dev/mail   (SMTP_URL is unset: mails land here)\n`}
Try it:
  curl -X POST ${base}/public/v1/signups -H 'content-type: application/json' \\
       -d '{"key":"${pk}","email":"you@example.com"}'
  then open the confirmation mail${env.SMTP_URL ? '' : ' in the development inbox'}, press the button, and
  curl -H 'Authorization: Bearer ${demo.keys.test.secret}' '${base}/api/v1/entries?email=you@example.com'
  invite the front of the line (you, on a fresh demo product), then open the invitation mail and follow its link:
  curl -X POST ${base}/api/v1/entries/invite-next -H 'Authorization: Bearer ${demo.keys.test.secret}' \\
       -H 'content-type: application/json' -d '{"count":1}'
`);
}

const running = (child) => child.exitCode === null && child.signalCode === null;
const exited = (child) => (running(child) ? new Promise((resolve) => child.once('exit', resolve)) : Promise.resolve());

/** The apps first, each finishing the jobs it holds; then the embedded servers they used. Once. */
function stop(code) {
  stopping ??= (async () => {
    for (const child of apps) if (running(child)) child.kill('SIGTERM');
    const killer = setTimeout(() => {
      for (const child of apps) {
        if (!running(child)) continue;
        console.error(`An app (pid ${child.pid}) did not stop within ${APPS_STOP_MS / 1000} s; killing it.`);
        child.kill('SIGKILL');
      }
    }, APPS_STOP_MS);
    await Promise.all(apps.map(exited));
    clearTimeout(killer);
    await servers?.stop();
    process.exit(code);
  })();
  return stopping;
}
// npm passes a Ctrl-C on as well: the second signal finds the stop under way.
process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));

main().catch((error) => {
  console.error(error.stack ?? error);
  stop(1);
});
