import { performance } from 'node:perf_hooks';
import { bearer } from '../test/support/flows';
import { AppProcess } from '../test/support/processes';
import { Receiver } from '../test/support/receiver';
import { Stack } from '../test/support/stack';
import { waitFor } from '../test/support/wait';
import { CpuMeter, perOperation, redisPid } from './support/cpu';
import { atLeast, atMost, cliOf, compileBaselines, perSecond, report, startSignupsServer, stopBaseline } from './support/harness';
import { BareDeliveries, MailLog, parkWebhooks, seedPendingBare, unparkWebhooks } from './support/launch-day';
import { load, percentile, Request } from './support/load';
import { seedEntries } from './support/scale';
import { checkLaunch } from './support/launch-day-checks';

const SIGNUPS = Number(process.env.LAUNCH_SIGNUPS ?? 20_000);
const INVITES = Number(process.env.LAUNCH_INVITES ?? 5_000);
/** Clients at once, each on its own connection: as many browsers (and, for the invitations, one team's calls in turn). */
const CONCURRENCY = Number(process.env.LAUNCH_CONCURRENCY ?? 50);
/** Confirmed referrers whose links a fifth of the sign-ups come through, in turn. */
const REFERRERS = 100;
/** A release's largest count (docs/api.md): a release of more runs this many at a time. */
const RUN_COUNT = Math.min(1000, INVITES);
/** `BENCH_CPU_PROF=<dir>`: a `--cpu-prof` profile of the mailer, written there when it stops. */
const PROFILE_DIR = process.env.BENCH_CPU_PROF;
const LIMITS = {
  RATE_LIMIT_SIGNUP: '10000000/1m',
  RATE_LIMIT_SIGNUP_ADDRESS: '5/1h',
  RATE_LIMIT_API: '1000000/1s',
  WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
  // The api's maintenance would trim each endpoint's delivery log to 100 while the bench counts it.
  MAINTENANCE_INTERVAL: '1h',
};

interface Stage {
  name: string;
  operations: number;
  ms: number;
  latencies: number[];
  cpu: Record<string, number>;
}

/**
 * Launch day on one product, end to end in one run (issue 37): SIGNUPS people sign up through the
 * public route (a fifth through referral links, protection standard), confirm from their mails, a
 * release invites INVITES under a capacity cap of INVITES, and two webhook endpoints receive every
 * event. Each stage is measured on its own, next to its bare work in the same run (bench/README.md):
 * rate, p50/p99 latency, CPU per operation of every process. At the end, checkLaunch: nothing lost or doubled.
 */
describe('launch day on one product', () => {
  let stack: Stack;
  let api: AppProcess;
  let mailer: AppProcess;
  let webhooks: AppProcess | undefined;
  let bare: Awaited<ReturnType<typeof startSignupsServer>>;
  let bareDeliveries: BareDeliveries;
  let mails: MailLog;
  let meter: CpuMeter;
  const receivers = [new Receiver(), new Receiver()];
  const launch = { id: '', publishable: '', secret: '', codes: [] as string[], endpoints: [] as { id: string; url: string; secret: string }[] };
  const bareProduct = { id: '', referrerIds: [] as string[], endpoints: [] as { id: string; url: string; secret: string }[] };

  beforeAll(async () => {
    compileBaselines();
    stack = await Stack.start({ apps: [], env: LIMITS });
    const cli = cliOf(stack.config, { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
    const created = cli('products', 'create', '--name', 'Launch');
    Object.assign(launch, { id: created.id, publishable: created.keys.test.publishable, secret: created.keys.test.secret });
    cli('products', 'update', '--product', launch.id, '--referral-protection', 'standard', '--capacity', String(INVITES));
    bareProduct.id = cli('products', 'create', '--name', 'Bare').id;
    const everyone = { pending: 0, confirmed: 1, invited: 0, redeemed: 0 };
    const referrers = await seedEntries(stack.db, { productId: launch.id, mode: 'test', count: REFERRERS, states: everyone, prefix: 'lref' });
    launch.codes = Array.from({ length: REFERRERS }, (_, i) => referrers.referralCode(i + 1));
    const bareReferrers = await seedEntries(stack.db, { productId: bareProduct.id, mode: 'test', count: REFERRERS, states: everyone, prefix: 'bref' });
    bareProduct.referrerIds = Array.from({ length: REFERRERS }, (_, i) => bareReferrers.id(i + 1));
    for (const receiver of receivers) {
      await receiver.start();
      const endpoint = (product: string, path: string) => {
        const url = `${receiver.url}/${path}`;
        return { ...cli('webhooks', 'create', '--product', product, '--mode', 'test', '--url', url), url };
      };
      launch.endpoints.push(endpoint(launch.id, 'hook'));
      bareProduct.endpoints.push(endpoint(bareProduct.id, 'bare'));
    }
    mails = new MailLog(stack.mail, `${stack.config.PUBLIC_BASE_URL}/confirm/`);
    api = await AppProcess.start('api', stack.config, { env: LIMITS });
    mailer = await AppProcess.start('mailer', stack.config, { env: LIMITS, nodeArgs: PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : [] });
    bare = await startSignupsServer(stack.config);
    bareDeliveries = new BareDeliveries(stack.config.DATABASE_URL);
    const redis = await redisPid(stack.config.REDIS_URL);
    meter = new CpuMeter(stack.db, () => ({
      api: [api.child.pid!],
      mailer: [mailer.child.pid!],
      webhooks: webhooks ? [webhooks.child.pid!] : [],
      'bare server': [bare.child.pid!],
      'bare deliveries': [bareDeliveries.child.pid!],
      'redis-server': [redis],
    }));
  });
  afterAll(async () => {
    await stopBaseline(bare?.child);
    await stopBaseline(bareDeliveries?.child);
    await webhooks?.stop();
    await api?.stop();
    await mailer?.stop();
    for (const receiver of receivers) await receiver.stop().catch(() => undefined);
    await stack?.stop();
  });

  /** Runs a stage's work between two readings of the clock and of every process's CPU. */
  async function measured(name: string, operations: number, work: () => Promise<number[]>): Promise<Stage> {
    const stop = await meter.start();
    const start = performance.now();
    const latencies = await work();
    const ms = performance.now() - start;
    const stage = { name, operations, ms, latencies, cpu: await stop() };
    const cpu = perOperation(stage.cpu, operations).text;
    process.stdout.write(`${name}: ${operations} in ${(ms / 1000).toFixed(2)} s, ${perSecond((operations / ms) * 1000)}, p50 ${percentile(latencies, 0.5).toFixed(1)} ms, p99 ${percentile(latencies, 0.99).toFixed(1)} ms; CPU per operation: ${cpu}\n`);
    return stage;
  }

  /** Requests `count` of `request` from `origin` at CONCURRENCY, then waits for `mailsDue` (if any) to hold: the latencies. */
  const requests = (origin: string, count: number, request: (i: number) => Request, status: number, mailsDue?: () => boolean) => async () => {
    const latencies = await load(origin, count, CONCURRENCY, request, status);
    if (mailsDue) await waitFor(mailsDue, 'every mail', { timeoutMs: 600_000, intervalMs: 5 });
    return latencies;
  };

  /** `count` calls of `request`, one after the other, as a release's runs come: the latencies. */
  const oneAfterAnother = (origin: string, count: number, request: (i: number) => Request) => async () => {
    const latencies: number[] = [];
    for (let i = 0; i < count; i++) latencies.push(...(await load(origin, 1, 1, () => request(i), 200)));
    return latencies;
  };

  /** A row for a stage against its bare work: the rate's ratio against the target, the latencies and CPU in the note. */
  function reportStage(work: string, baseline: string, service: Stage, bareStage: Stage, target: number, cpuTarget: number): void {
    const rate = (stage: Stage) => (stage.operations / stage.ms) * 1000;
    const figures = (stage: Stage) =>
      `p50 ${percentile(stage.latencies, 0.5).toFixed(1)} ms, p99 ${percentile(stage.latencies, 0.99).toFixed(1)} ms; CPU per operation ${perOperation(stage.cpu, stage.operations).text}`;
    const cpu = perOperation(service.cpu, service.operations).totalMs / perOperation(bareStage.cpu, bareStage.operations).totalMs;
    const note = `service: ${figures(service)}. Bare: ${figures(bareStage)}. CPU per operation summed over every process, service ÷ bare: ${cpu.toFixed(2)}× (target ≤ ${cpuTarget}×)`;
    report({ work: `launch day: ${work}`, baseline, baselineValue: perSecond(rate(bareStage)), serviceValue: perSecond(rate(service)), ...atLeast(rate(service) / rate(bareStage), target), note });
    report({
      work: `launch day: ${work}, CPU per operation`,
      baseline: `${baseline}, CPU`,
      baselineValue: `${perOperation(bareStage.cpu, bareStage.operations).totalMs.toFixed(2)} ms`,
      serviceValue: `${perOperation(service.cpu, service.operations).totalMs.toFixed(2)} ms`,
      ...atMost(cpu, cpuTarget),
    });
  }

  it(`runs ${SIGNUPS.toLocaleString('en-US')} sign-ups, their confirmations and ${INVITES.toLocaleString('en-US')} invitations, every event to two endpoints`, async () => {
    const signup = (i: number): Request => ({
      method: 'POST',
      path: '/public/v1/signups',
      body: { key: launch.publishable, email: `launch-${i}@example.com`, ...(i % 5 === 0 ? { ref: launch.codes[(i / 5) % REFERRERS] } : {}) },
    });
    // Both sides' code paths compiled and their connections open before the clock runs (a product of its own).
    const warmKey = cliOf(stack.config)('products', 'create', '--name', 'Warm-up').keys.test.publishable;
    await requests(bare.url, 200, (i) => ({ method: 'POST', path: '/signups', body: { email: `warmbare-${i}@example.com` } }), 202, () => mails.count('warmbare', 'confirmation') === 200)();
    await requests(api.url, 200, (i) => ({ method: 'POST', path: '/public/v1/signups', body: { key: warmKey, email: `warm-${i}@example.com` } }), 202, () => mails.count('warm', 'confirmation') === 200)();

    // 1. Sign-ups, each until its confirmation mail is accepted.
    const bareSignups = await measured('bare sign-ups', SIGNUPS, requests(bare.url, SIGNUPS, (i) => ({ method: 'POST', path: '/signups', body: { email: `bare-${i}@example.com` } }), 202, () => mails.count('bare', 'confirmation') === SIGNUPS));
    const signups = await measured('sign-ups', SIGNUPS, requests(api.url, SIGNUPS, signup, 202, () => mails.count('launch', 'confirmation') === SIGNUPS));
    reportStage(`public sign-ups with their mail, ${SIGNUPS.toLocaleString('en-US')}, a fifth referred, ${CONCURRENCY} clients`, 'bare insert + nodemailer (signups-server.ts)', signups, bareSignups, 0.85, 1.2);

    // 2. Confirmations, from the links in the mails.
    await seedPendingBare(stack.db, bareProduct.id, SIGNUPS, bareProduct.referrerIds);
    const links = Array.from({ length: SIGNUPS }, (_, i) => mails.of(`launch-${i}@example.com`, 'confirmation')[0]);
    const bareConfirms = await measured('bare confirmations', SIGNUPS, requests(bare.url, SIGNUPS, (i) => ({ method: 'POST', path: `/confirm/bare-token-${i}` }), 303));
    const confirms = await measured('confirmations', SIGNUPS, requests(api.url, SIGNUPS, (i) => ({ method: 'POST', path: links[i] }), 303));
    reportStage(`confirmations from the mails, ${SIGNUPS.toLocaleString('en-US')}, protection standard, ${CONCURRENCY} clients`, 'bare confirmation in plain SQL (bare-launch.ts)', confirms, bareConfirms, 0.8, 1.5);

    // 3. Invitations: a release of RUN_COUNT run now until the cap is reached; each run answers once its mails are settled.
    const runs = Math.ceil(INVITES / RUN_COUNT);
    const count = (i: number) => Math.min(RUN_COUNT, INVITES - i * RUN_COUNT);
    const bareInvite = (i: number): Request => ({ method: 'POST', path: '/invite', body: { productId: bareProduct.id, mode: 'test', count: count(i) } });
    const bareInvites = await measured('bare invitations', INVITES, oneAfterAnother(bare.url, runs, bareInvite));
    const created = await fetch(`${api.url}/api/v1/releases`, {
      method: 'POST',
      headers: { ...bearer(launch.secret), 'content-type': 'application/json' },
      // Yearly: it runs when the bench says so.
      body: JSON.stringify({ count: RUN_COUNT, pattern: '0 0 1 1 *', timeZone: 'UTC' }),
    });
    const release = (await created.json()) as { id: string };
    const run = (): Request => ({ method: 'POST', path: `/api/v1/releases/${release.id}/run`, headers: bearer(launch.secret) });
    const invites = await measured('invitations', INVITES, oneAfterAnother(api.url, runs, run));
    reportStage(`a release inviting ${INVITES.toLocaleString('en-US')} under a cap of as many, runs of ${RUN_COUNT}`, 'bare invite rows + nodemailer (bare-launch.ts)', invites, bareInvites, 0.77, 1.3);

    // 4. Deliveries of every event so far to both endpoints, drained by a webhooks app started now: its
    // rows are held back while it starts and handed to it at once when the clock starts.
    const events = await bareDeliveries.load(stack.db, launch.id, bareProduct.endpoints);
    const deliveries = 2 * events;
    const bareDrain = await measured('bare deliveries', deliveries, async () => {
      expect(await bareDeliveries.run(bareProduct.endpoints, 50)).toBe(deliveries);
      return attemptDurations(bareProduct.endpoints);
    });
    for (const receiver of receivers) receiver.received.length = 0;
    await parkWebhooks(stack.db);
    webhooks = await AppProcess.start('webhooks', stack.config, { env: LIMITS });
    const drain = await measured('deliveries', deliveries, async () => {
      await unparkWebhooks(stack.db);
      await waitFor(
        async () =>
          receivers.every((receiver) => receiver.received.length >= events) &&
          (await stack.db.query(`SELECT count(*)::int AS n FROM deliveries WHERE endpoint_id = ANY ($1) AND status = 'succeeded'`, [launch.endpoints.map((e) => e.id)]))[0].n === deliveries,
        'every delivery to succeed',
        { timeoutMs: 1_800_000, intervalMs: 50 },
      );
      return attemptDurations(launch.endpoints);
    });
    reportStage(`deliveries of its ${events.toLocaleString('en-US')} events to 2 endpoints, drained after the release`, 'bare logged deliveries (bare-deliveries.ts)', drain, bareDrain, 0.83, 1.2);

    await checkLaunch({ stack, mails, receivers, productId: launch.id, secret: launch.secret, apiUrl: api.url, signups: SIGNUPS, invites: INVITES, referrers: REFERRERS, endpoints: launch.endpoints, events, releaseId: release.id, runCount: RUN_COUNT });
    // At the issue's sizes the stages may take longer than the benchmarks' 30 minutes on the loaded 2-core machine.
  }, 3_600_000);

  /** The delivery log's attempt durations (the POST's round trip) to these endpoints. */
  async function attemptDurations(endpoints: { id: string }[]): Promise<number[]> {
    const rows: { ms: number }[] = await stack.db.query(
      `SELECT a.duration_ms AS ms FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id WHERE d.endpoint_id = ANY ($1)`,
      [endpoints.map((endpoint) => endpoint.id)],
    );
    return rows.map((row) => row.ms);
  }
});
