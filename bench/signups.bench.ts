import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { AppProcess } from '../test/support/processes';
import { Stack } from '../test/support/stack';
import { freePort } from '../test/support/throwaway-redis';
import { waitFor } from '../test/support/wait';
import { alternate, atLeast, Measure, perSecond, report, reportMemory, stopBaseline } from './support/harness';

const SIGNUPS = Number(process.env.BENCH_SIGNUPS ?? 10_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARM_UP = 500;
/** Requests in flight at once, each on its own connection, as many browsers posting the form. */
const CONCURRENCY = 50;
const ROOT = join(__dirname, '..');
/** Limits high enough that no sign-up of the run is refused, while both limiters still count every one. */
/** The mailer's mark of issue 12 (the same as the webhooks app's). */
const RSS_MARK_MB = 150;
const LIMITS = { RATE_LIMIT_SIGNUP: '10000000/1m', RATE_LIMIT_SIGNUP_ADDRESS: '5/1h' };

/**
 * Public sign-ups per second, each with its confirmation mail accepted by the SMTP sink, next to a bare
 * Fastify + pg insert handler with nodemailer alone (bench/baseline/signups-server.ts) in the same run.
 * The api and the mailer run as real processes, as the baseline does, so that neither shares its event
 * loop with the load or the sink; the clock runs from the first request to the last mail accepted.
 * BENCH_PROFILE=<dir> writes CPU profiles of the api, the mailer and the baseline there when they stop;
 * BENCH_SIGNUPS and BENCH_ROUNDS make a shorter run while iterating.
 */
describe('public sign-ups with their confirmation mail', () => {
  let stack: Stack;
  let api: AppProcess;
  let mailer: AppProcess;
  let baseline: ChildProcess;
  let baselineUrl: string;
  let publishableKey: string;
  let round = 0;

  beforeAll(async () => {
    // The child processes run compiled code: the baseline is compiled beside the apps in dist/.
    execFileSync('npx', ['swc', 'bench/baseline', '-d', 'dist', '--config-file', '.swcrc', '--quiet'], { cwd: ROOT });
    stack = await Stack.start({ apps: [], env: LIMITS });
    const env = { PATH: process.env.PATH, DATABASE_URL: stack.config.DATABASE_URL, REDIS_URL: stack.config.REDIS_URL, QUEUE_PREFIX: stack.config.QUEUE_PREFIX };
    const created = execFileSync('node', ['dist/apps/api/src/cli/main.js', 'products', 'create', '--name', 'Bench', '--json'], { cwd: ROOT, env });
    publishableKey = JSON.parse(created.toString()).keys.test.publishable;

    const nodeArgs = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
    api = await AppProcess.start('api', stack.config, { env: LIMITS, nodeArgs });
    mailer = await AppProcess.start('mailer', stack.config, { env: LIMITS, nodeArgs });
    const port = await freePort();
    baselineUrl = `http://127.0.0.1:${port}`;
    baseline = spawn('node', [...nodeArgs, join(ROOT, 'dist/bench/baseline/signups-server.js')], {
      env: { PATH: process.env.PATH, PORT: String(port), DATABASE_URL: stack.config.DATABASE_URL, SMTP_URL: stack.config.SMTP_URL, PUBLIC_BASE_URL: stack.config.PUBLIC_BASE_URL },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    await waitFor(() => fetch(`${baselineUrl}/healthz`).then((response) => response.ok, () => false), 'the baseline server to start', { timeoutMs: 60_000 });
  });
  afterAll(async () => {
    await stopBaseline(baseline);
    await api?.stop();
    await mailer?.stop();
    await stack?.stop();
  });

  /** Signs up `count` new addresses `CONCURRENCY` at a time; resolves when the sink has accepted each one's mail. */
  async function signUps(origin: string, path: string, count: number): Promise<Measure> {
    const prefix = `r${round++}-`;
    const mailed = new Set<string>();
    let mails = 0;
    stack.mail.mails.length = 0;
    stack.mail.afterAccept = (mail) => {
      if (!mail.to.startsWith(prefix)) return;
      mails++;
      mailed.add(mail.to);
    };
    const pool = new Pool(origin, { connections: CONCURRENCY });
    const start = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        for (let i = next++; i < count; i = next++) {
          const response = await pool.request({
            method: 'POST',
            path,
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ key: publishableKey, email: `${prefix}${i}@example.com` }),
          });
          const body = await response.body.text();
          if (response.statusCode !== 202) throw new Error(`A sign-up answered ${response.statusCode}: ${body}`);
        }
      }),
    );
    const answeredMs = performance.now() - start;
    await waitFor(() => mailed.size === count, `${count} confirmation mails`, { timeoutMs: 600_000, intervalMs: 5 });
    const ms = performance.now() - start;
    await pool.close();
    // A second mail to any address would have counted here too.
    expect(mails).toBe(count);
    process.stdout.write(`${origin === baselineUrl ? 'baseline' : 'service '} ${count} sign-ups: answered in ${(answeredMs / 1000).toFixed(2)} s, mailed in ${(ms / 1000).toFixed(2)} s, ${perSecond((count / ms) * 1000)}\n`);
    return { kind: 'rate', perSecond: (count / ms) * 1000 };
  }

  it(`reports ${SIGNUPS.toLocaleString('en-US')} sign-ups per second against a bare insert handler with nodemailer`, async () => {
    const service = () => signUps(api.url, '/public/v1/signups', SIGNUPS);
    const bare = () => signUps(baselineUrl, '/signups', SIGNUPS);
    // Both sides' code paths compiled and their connections open before the clock runs.
    await signUps(baselineUrl, '/signups', WARM_UP);
    await signUps(api.url, '/public/v1/signups', WARM_UP);

    const result = await alternate(ROUNDS, bare, service);
    report({
      work: `public sign-up with its confirmation mail, ${SIGNUPS.toLocaleString('en-US')} sign-ups, ${CONCURRENCY} connections, every mail handed over`,
      baseline: 'bare Fastify + pg insert handler plus nodemailer alone',
      baselineValue: perSecond(result.baseline),
      serviceValue: perSecond(result.service),
      ...atLeast(result.ratio, 0.7),
    });
    reportMemory('mailer RSS after the sign-up run', mailer.child.pid!, RSS_MARK_MB, `the mailer process's resident memory after ${ROUNDS + 1} runs of sign-ups`);
  });
});
