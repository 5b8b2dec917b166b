import { ChildProcess } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { AppProcess } from '../test/support/processes';
import { Stack } from '../test/support/stack';
import { waitFor } from '../test/support/wait';
import { CpuByGroup, CpuMeter, perOperation, redisPid } from './support/cpu';
import { alternateAll, atLeast, cliOf, compileBaselines, Measure, median, perSecond, report, reportMemory, startSignupsServer, stopBaseline, TARGET_ROUNDS } from './support/harness';

const SIGNUPS = Number(process.env.BENCH_SIGNUPS ?? 10_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? TARGET_ROUNDS);
const WARM_UP = 500;
/** Requests in flight at once, each on its own connection, as many browsers posting the form. */
const CONCURRENCY = 50;
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
  /** The durable sign-ups baseline (bench/baseline/durable-signups-server.ts): the contract's work and the bare durable drain. */
  let durable: ChildProcess;
  let durableUrl: string;
  let publishableKey: string;
  let round = 0;
  let meter: CpuMeter;
  const cpu = { baseline: [] as number[], durable: [] as number[], service: [] as number[], texts: [] as string[] };

  beforeAll(async () => {
    // The child processes run compiled code: the baseline is compiled beside the apps in dist/.
    compileBaselines();
    stack = await Stack.start({ apps: [], env: LIMITS });
    publishableKey = cliOf(stack.config)('products', 'create', '--name', 'Bench').keys.test.publishable;

    const nodeArgs = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
    api = await AppProcess.start('api', stack.config, { env: LIMITS, nodeArgs });
    mailer = await AppProcess.start('mailer', stack.config, { env: LIMITS, nodeArgs });
    ({ child: baseline, url: baselineUrl } = await startSignupsServer(stack.config, nodeArgs));
    ({ child: durable, url: durableUrl } = await startSignupsServer(stack.config, nodeArgs, {
      file: 'durable-signups-server.js',
      env: { REDIS_URL: stack.config.REDIS_URL, RATE_LIMIT_SIGNUP: LIMITS.RATE_LIMIT_SIGNUP, RATE_LIMIT_SIGNUP_ADDRESS: LIMITS.RATE_LIMIT_SIGNUP_ADDRESS },
    }));
    const redis = await redisPid(stack.config.REDIS_URL);
    meter = new CpuMeter(stack.db, () => ({
      api: [api.child.pid!],
      mailer: [mailer.child.pid!],
      baseline: [baseline.pid!],
      durable: [durable.pid!],
      'redis-server': [redis],
    }));
  });
  afterAll(async () => {
    await stopBaseline(baseline);
    await stopBaseline(durable);
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
    const side = origin === baselineUrl ? 'baseline' : origin === durableUrl ? 'durable' : 'service';
    const writes = await rowWrites();
    const stop = await meter.start();
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
    const mailedByThen = mailed.size;
    await waitFor(() => mailed.size === count, `${count} confirmation mails`, { timeoutMs: 600_000, intervalMs: 5 });
    const ms = performance.now() - start;
    const used = await stop();
    await pool.close();
    // A second mail to any address would have counted here too.
    expect(mails).toBe(count);
    process.stdout.write(`${side} ${count} sign-ups: answered in ${(answeredMs / 1000).toFixed(2)} s (${mailedByThen} mailed by then), mailed in ${(ms / 1000).toFixed(2)} s, ${perSecond((count / ms) * 1000)}\n`);
    keep(side, used, count, count === SIGNUPS);
    process.stdout.write(`${side} rows written per sign-up: ${await rowWritesSince(writes, count)}\n`);
    return { kind: 'rate', perSecond: (count / ms) * 1000 };
  }

  /** Each process group's CPU per sign-up (printed; kept for the row when `counted`), the sum over every process but jest's. */
  function keep(side: 'baseline' | 'durable' | 'service', used: CpuByGroup, count: number, counted: boolean): void {
    const { text, totalMs } = perOperation(used, count);
    process.stdout.write(`${side} CPU per sign-up: ${text}\n`);
    if (!counted) return;
    cpu[side].push(totalMs);
    if (side === 'service') cpu.texts.push(text);
  }

  /** The database's commits and row writes (inserts, updates, deletes) per table so far; backends report within a second or so. */
  async function rowWrites(): Promise<Map<string, number>> {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await stack.db.query('SELECT pg_stat_clear_snapshot()');
    const rows: { relname: string; n: string }[] = await stack.db.query(
      `SELECT relname, n_tup_ins + n_tup_upd + n_tup_del AS n FROM pg_stat_user_tables
       UNION ALL SELECT '(commits)', xact_commit FROM pg_stat_database WHERE datname = current_database()`,
    );
    return new Map(rows.map((row) => [row.relname, Number(row.n)]));
  }

  async function rowWritesSince(before: Map<string, number>, count: number): Promise<string> {
    const after = await rowWrites();
    return [...after]
      .map(([table, n]) => [table, (n - (before.get(table) ?? 0)) / count] as const)
      .filter(([, n]) => n > 0)
      .map(([table, n]) => `${table} ${n.toFixed(2)}`)
      .join(', ');
  }

  it(`reports ${SIGNUPS.toLocaleString('en-US')} sign-ups per second against a bare insert handler with nodemailer`, async () => {
    const service = () => signUps(api.url, '/public/v1/signups', SIGNUPS);
    const bare = () => signUps(baselineUrl, '/signups', SIGNUPS);
    const bareDurable = () => signUps(durableUrl, '/signups', SIGNUPS);
    // Every side's code paths compiled and their connections open before the clock runs.
    await signUps(baselineUrl, '/signups', WARM_UP);
    await signUps(durableUrl, '/signups', WARM_UP);
    await signUps(api.url, '/public/v1/signups', WARM_UP);

    // A B C A B C …: the machine's noise spread over the three sides.
    const { baseline: baselineRate, durable: durableRate, service: serviceRate } = await alternateAll(ROUNDS, { baseline: bare, durable: bareDurable, service });
    const work = `public sign-up with its confirmation mail, ${SIGNUPS.toLocaleString('en-US')} sign-ups, ${CONCURRENCY} connections, every mail handed over`;
    report({
      work,
      baseline: 'bare Fastify + pg insert handler plus nodemailer alone',
      baselineValue: perSecond(baselineRate),
      serviceValue: perSecond(serviceRate),
      ...atLeast(serviceRate / baselineRate, 0.85),
      note: `CPU per sign-up over every process (median): ${median(cpu.service).toFixed(2)} ms against ${median(cpu.baseline).toFixed(2)} ms; last service round: ${cpu.texts.at(-1)}`,
    });
    report({
      work,
      baseline: 'the durable sign-up in plain code (key from memory, both limits in Redis, entry + event + outbox rows in one statement) with the bare durable drain',
      baselineValue: perSecond(durableRate),
      serviceValue: perSecond(serviceRate),
      ...atLeast(serviceRate / durableRate, 0.85),
      note: `CPU per sign-up over every process incl. PostgreSQL and Redis (median): ${median(cpu.service).toFixed(2)} ms against ${median(cpu.durable).toFixed(2)} ms`,
    });
    reportMemory('mailer RSS after the sign-up run', mailer.child.pid!, RSS_MARK_MB, `the mailer process's resident memory after ${ROUNDS + 1} runs of sign-ups`);
  });
});
