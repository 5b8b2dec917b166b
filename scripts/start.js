#!/usr/bin/env node
// npm start: the whole service for a newcomer. Compiles, applies migrations, creates the demo product
// once (its keys are kept in .demo-keys.json), then runs api, mailer and webhooks until Ctrl-C.
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const path = require('node:path');

const root = path.join(__dirname, '..');
const cli = path.join(root, 'dist/apps/api/src/cli/main.js');
const env = { LOG_LEVEL: 'warn', ...process.env };
env.PUBLIC_BASE_URL ||= `http://localhost:${env.PORT || 3000}`;

function run(command, args) {
  const result = spawnSync(command, args, { cwd: root, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (result.status !== 0) process.exit(result.status ?? 1);
  return result.stdout;
}

run('npm', ['run', '--silent', 'build:js']);
process.stdout.write(run('node', [cli, 'migrate']));
const demo = JSON.parse(run('node', [cli, 'demo', '--keys-file', path.join(root, '.demo-keys.json'), '--json']));

const base = env.PUBLIC_BASE_URL.replace(/\/+$/, '');
const pk = demo.keys.test.publishable;
console.log(`
Waitlist is starting: api, mailer and webhooks.

  API                ${base}/api/v1   (Authorization: Bearer <secret key>)
  Demo product       ${demo.id}
    test secret      ${demo.keys.test.secret}
    test publishable ${pk}
    live secret      ${demo.keys.live.secret}
    live publishable ${demo.keys.live.publishable}
  Sign-up page       ${base}/w/${pk}
  Dashboard          ${base}/dashboard   (${demo.dashboard.email} / ${demo.dashboard.password})
${env.SMTP_URL ? '' : `  Development inbox  ${base}/dev/mail   (SMTP_URL is unset: mails land here)\n`}
Try it:
  curl -X POST ${base}/public/v1/signups -H 'content-type: application/json' \\
       -d '{"key":"${pk}","email":"you@example.com"}'
  then open the confirmation mail${env.SMTP_URL ? '' : ' in the development inbox'}, press the button, and
  curl -H 'Authorization: Bearer ${demo.keys.test.secret}' '${base}/api/v1/entries?email=you@example.com'
`);

// Each app as its start script runs it (the workers' heap limits are there).
const { scripts } = require('../package.json');
const apps = ['api', 'mailer', 'webhooks'].map((name) => {
  const [node, ...args] = scripts[`start:${name}`].split(' ');
  const child = spawn(node, args, { cwd: root, env, stdio: 'inherit' });
  child.on('exit', (code, signal) => {
    if (stopping) return;
    console.error(`${name} stopped (${signal ?? `exit code ${code}`}); stopping the others.`);
    stop(code || 1);
  });
  return child;
});

let stopping = false;
function stop(code) {
  stopping = true;
  for (const child of apps) if (child.exitCode === null) child.kill('SIGTERM');
  Promise.all(apps.map((child) => (child.exitCode === null ? new Promise((resolve) => child.on('exit', resolve)) : null))).then(() =>
    process.exit(code),
  );
}
process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));
