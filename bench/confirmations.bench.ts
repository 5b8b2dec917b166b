import { performance } from 'node:perf_hooks';
import { AppProcess } from '../test/support/processes';
import { Stack } from '../test/support/stack';
import { CpuMeter, CpuByGroup, perOperation, redisPid } from './support/cpu';
import { atLeast, atMost, cliOf, compileBaselines, perSecond, report, startSignupsServer, stopBaseline } from './support/harness';
import { seedPendingBare } from './support/launch-day';
import { load, percentile } from './support/load';
import { seedEntries } from './support/scale';

const CONFIRMS = Number(process.env.BENCH_CONFIRMS ?? 2_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 50);
const PRODUCTS = 20;
/** Confirmed referrers of the one product; each of the twenty has its share, so that a referrer has as many referrals on either side. */
const REFERRERS = 100;
const WARM_UP = 200;
const LIMITS = { RATE_LIMIT_API: '1000000/1s', MAINTENANCE_INTERVAL: '1h' };

interface Stage {
  ms: number;
  latencies: number[];
  cpu: CpuByGroup;
}

/**
 * Confirmations of one product against the same load spread over twenty (issue 37 item 2): CONFIRMS
 * pending entries (a fifth referred, protection standard, mailed an hour ago) confirm through
 * `POST /confirm/:token`, CONCURRENCY at a time, first spread over twenty products, then all of one
 * product; and as many bare confirmations (bench/baseline/bare-launch.ts) in the same run. Rate, p50/p99,
 * CPU per confirmation summed over every process (api, bare server, PostgreSQL's backends, Redis).
 */
describe('confirmations of one product against twenty', () => {
  let stack: Stack;
  let api: AppProcess;
  let bare: Awaited<ReturnType<typeof startSignupsServer>>;
  let meter: CpuMeter;
  let warm = '';

  beforeAll(async () => {
    compileBaselines();
    stack = await Stack.start({ apps: [], env: LIMITS });
    const cli = cliOf(stack.config);
    const product = async (name: string, prefix: string, pending: number, referrers: number) => {
      const { id } = cli('products', 'create', '--name', name);
      cli('products', 'update', '--product', id, '--referral-protection', 'standard');
      const everyone = { pending: 0, confirmed: 1, invited: 0, redeemed: 0 };
      const seeded = await seedEntries(stack.db, { productId: id, mode: 'test', count: referrers, states: everyone, prefix: `${prefix}r` });
      await seedPendingBare(stack.db, id, pending, Array.from({ length: referrers }, (_, i) => seeded.id(i + 1)), prefix);
    };
    await product('Warm', 'warm', WARM_UP, 10);
    await product('Bare warm', 'bwarm', WARM_UP, 10);
    await product('Bare', 'bare', CONFIRMS, REFERRERS);
    await product('One', 'one', CONFIRMS, REFERRERS);
    for (let k = 0; k < PRODUCTS; k++) await product(`Twenty ${k}`, `tw${k}`, CONFIRMS / PRODUCTS, REFERRERS / PRODUCTS);
    warm = 'warm';
    api = await AppProcess.start('api', stack.config, { env: LIMITS, nodeArgs: process.env.BENCH_API_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_API_PROFILE}`] : [] });
    bare = await startSignupsServer(stack.config);
    const redis = await redisPid(stack.config.REDIS_URL);
    meter = new CpuMeter(stack.db, () => ({ api: [api.child.pid!], 'bare server': [bare.child.pid!], 'redis-server': [redis] }));
  }, 600_000);
  afterAll(async () => {
    await stopBaseline(bare?.child);
    await api?.stop();
    await stack?.stop();
  });

  async function measured(name: string, origin: string, path: (i: number) => string): Promise<Stage> {
    const stop = await meter.start();
    const start = performance.now();
    const latencies = await load(origin, CONFIRMS, CONCURRENCY, (i) => ({ method: 'POST', path: path(i) }), 303);
    const stage = { ms: performance.now() - start, latencies, cpu: await stop() };
    process.stdout.write(`${name}: ${describe(stage)}\n`);
    return stage;
  }

  const rate = (stage: Stage) => (CONFIRMS / stage.ms) * 1000;
  const p = (stage: Stage, q: number) => percentile(stage.latencies, q);
  const cpu = (stage: Stage) => perOperation(stage.cpu, CONFIRMS);
  const describe = (stage: Stage) =>
    `${CONFIRMS} in ${(stage.ms / 1000).toFixed(2)} s, ${perSecond(rate(stage))}, p50 ${p(stage, 0.5).toFixed(1)} ms, p99 ${p(stage, 0.99).toFixed(1)} ms; CPU per confirmation: ${cpu(stage).text}`;

  it(`confirms ${CONFIRMS.toLocaleString('en-US')} of one product as fast as of twenty`, async () => {
    await load(bare.url, WARM_UP, CONCURRENCY, (i) => ({ method: 'POST', path: `/confirm/bwarm-token-${i}` }), 303);
    await load(api.url, WARM_UP, CONCURRENCY, (i) => ({ method: 'POST', path: `/confirm/${warm}-token-${i}` }), 303);

    const bareStage = await measured('bare confirmations (one product)', bare.url, (i) => `/confirm/bare-token-${i}`);
    const twenty = await measured('confirmations over twenty products', api.url, (i) => `/confirm/tw${i % PRODUCTS}-token-${Math.floor(i / PRODUCTS)}`);
    const one = await measured('confirmations of one product', api.url, (i) => `/confirm/one-token-${i}`);

    const [{ confirmed }] = await stack.db.query(`SELECT count(*)::int AS confirmed FROM entries WHERE state = 'confirmed' AND email LIKE 'onec-%'`);
    expect(confirmed).toBe(CONFIRMS);
    const note = `one: ${describe(one)}. Twenty: ${describe(twenty)}. Bare: ${describe(bareStage)}. p99 one ÷ twenty ${(p(one, 0.99) / p(twenty, 0.99)).toFixed(2)}× (target ≤ 1.5×)`;
    report({ work: `confirmations of one product, ${CONFIRMS.toLocaleString('en-US')}, ${CONCURRENCY} clients`, baseline: 'the same spread over twenty products', baselineValue: perSecond(rate(twenty)), serviceValue: perSecond(rate(one)), ...atLeast(rate(one) / rate(twenty), 0.8), note });
    report({
      work: 'confirmations of one product, CPU per confirmation',
      baseline: 'bare confirmation (bare-launch.ts), CPU',
      baselineValue: `${cpu(bareStage).totalMs.toFixed(2)} ms`,
      serviceValue: `${cpu(one).totalMs.toFixed(2)} ms`,
      ...atMost(cpu(one).totalMs / cpu(bareStage).totalMs, 1.5),
    });
  });
});
