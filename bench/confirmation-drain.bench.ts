import { QueueName } from '@app/shared';
import { ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { AppProcess } from '../test/support/processes';
import { Stack } from '../test/support/stack';
import { waitFor } from '../test/support/wait';
import { commitCount, CpuByGroup, CpuMeter, perOperation, redisPid } from './support/cpu';
import { alternateAll, atMost, cliOf, compileBaselines, heapBoundsOf, Measure, median, report, seconds, stopBaseline, TARGET_ROUNDS } from './support/harness';

const MAILS = Number(process.env.CONFIRMATION_DRAIN ?? 3000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? TARGET_ROUNDS);
/** A directory for a --cpu-prof profile of each round's mailer and baseline process, when set. */
const PROFILE_DIR = process.env.BENCH_CPU_PROF;
/**
 * Node arguments for the baseline's process: the mailer's own heap bounds from its start script
 * (`--max-old-space-size=96 --max-semi-space-size=8`), so that both sides work in the same memory, unless
 * BENCH_BASELINE_NODE_ARGS says otherwise (empty: node's defaults, to tell the bounds' share of the gap).
 */
const BASELINE_NODE_ARGS = (process.env.BENCH_BASELINE_NODE_ARGS ?? heapBoundsOf('mailer').join(' ')).split(' ').filter(Boolean);
/** The outbox queue the seeded mails wait on while the mailer starts. */
const PARKED = 'parked-mail';
/** The outbox queue of the bare durable drain's seeded mails: its own, so that no mailer sees them. */
const BARE_QUEUE = 'bare-mail';

/**
 * A backlog of MAILS confirmation mails drained by a starting mailer (issue 37, item 3), next to
 * nodemailer alone with the same pool sending as many mails of the same size to the same sink, in
 * the same run (bench/README.md). Time: the sink's first arrival to its last; CPU per mail: the
 * mailer or the baseline's process, PostgreSQL's backends and redis-server, from the go to the last
 * mail's outbox row gone (the baseline: its last arrival).
 */
describe(`a backlog of ${MAILS.toLocaleString('en-US')} confirmation mails`, () => {
  let stack: Stack;
  let productId = '';
  let mailer: AppProcess | undefined;
  /** The baseline's process of the round: nodemailer alone, or the bare durable drain. */
  let bare: ChildProcess | undefined;
  let meter: CpuMeter;
  let round = 0;
  const cpu = { baseline: [] as number[], durable: [] as number[], service: [] as number[], texts: [] as string[] };
  /** The prefix being counted, and its arrivals' number, first and last time. */
  let counting: { prefix: string; count: number; first: number; last: number } | undefined;

  beforeAll(async () => {
    compileBaselines();
    stack = await Stack.start({ apps: [] });
    const cli = cliOf(stack.config);
    productId = cli('products', 'create', '--name', 'Drain').id;
    stack.mail.afterAccept = (mail) => {
      // The sink's own list would hold every parsed mail: emptied as each arrives.
      stack.mail.mails.length = 0;
      if (!counting || !mail.to.startsWith(`${counting.prefix}-`)) return;
      const now = performance.now();
      if (counting.count++ === 0) counting.first = now;
      counting.last = now;
    };
    const redis = await redisPid(stack.config.REDIS_URL);
    meter = new CpuMeter(stack.db, () => ({
      mailer: mailer ? [mailer.child.pid!] : [],
      baseline: bare ? [bare.pid!] : [],
      'redis-server': [redis],
    }));
  });
  afterAll(async () => {
    await mailer?.stop();
    await stopBaseline(bare);
    await stack?.stop();
  });

  it(`drains ${MAILS.toLocaleString('en-US')} within 1.3× the time of nodemailer alone, and of the bare durable drain`, async () => {
    // A B C A B C …: the machine's noise spread over the three sides.
    const { baseline: baselineMs, durable: durableMs, service: serviceMs } = await alternateAll(ROUNDS, { baseline, durable: bareDurable, service });
    const [baselineCpu, durableCpu, serviceCpu] = [median(cpu.baseline), median(cpu.durable), median(cpu.service)];
    const work = `a backlog of ${MAILS.toLocaleString('en-US')} confirmation mails drained by a starting mailer, first to last arrival`;
    const under = `under ${BASELINE_NODE_ARGS.join(' ') || 'node\'s default heap'}`;
    report({
      work,
      baseline: `nodemailer alone, same pool, same sink, as many mails of the same size, ${under}`,
      baselineValue: seconds(baselineMs),
      serviceValue: seconds(serviceMs),
      ...atMost(serviceMs / baselineMs, 1.3),
      note: `CPU per mail over every process (median): ${serviceCpu.toFixed(2)} ms against ${baselineCpu.toFixed(2)} ms; last service round: ${cpu.texts.at(-1)}`,
    });
    report({
      work,
      baseline: `the bare durable drain (outbox rows read in pages with their entries, token hashes stored, the mailer's mail, same pool, rows deleted per batch), ${under}`,
      baselineValue: seconds(durableMs),
      serviceValue: seconds(serviceMs),
      ...atMost(serviceMs / durableMs, 1.3),
      note: `CPU per mail over every process incl. PostgreSQL (median): ${serviceCpu.toFixed(2)} ms against ${durableCpu.toFixed(2)} ms`,
    });
  });

  /** Counts the sink's arrivals to `prefix-…` while `work` runs; first → last once MAILS arrived (a mail lost fails the round). */
  async function arrivals(prefix: string, work: () => Promise<void>): Promise<Measure> {
    const arrived = (counting = { prefix, count: 0, first: 0, last: 0 });
    await work();
    await waitFor(() => arrived.count >= MAILS, `${MAILS} mails to ${prefix}-…`, { timeoutMs: 10 * 60_000 });
    const { first, last } = arrived;
    counting = undefined;
    return { kind: 'time', ms: last - first };
  }

  /** Each group's CPU per mail, kept for the row; the sum over every process but jest's. */
  function keep(side: 'baseline' | 'durable' | 'service', used: CpuByGroup): void {
    const { text, totalMs } = perOperation(used, MAILS);
    cpu[side].push(totalMs);
    if (side === 'service') cpu.texts.push(text);
    process.stdout.write(`${side} round ${round}: CPU per mail ${text}\n`);
  }

  async function baseline(): Promise<Measure> {
    round++;
    const prefix = `bare${round}`;
    const { measure, answer } = await runBaseline('baseline', 'nodemailer-drain.js', { PREFIX: prefix, COUNT: String(MAILS) }, prefix, {});
    expect(answer).toEqual({ type: 'done' });
    return measure;
  }

  /**
   * The bare durable drain (bench/baseline/bare-mail-drain.ts), a process started per round as the
   * mailer is, draining a backlog seeded as the mailer's, on a queue of its own, outside the clock.
   */
  async function bareDurable(): Promise<Measure> {
    const prefix = `durable${round}`;
    await seedBacklog(prefix, BARE_QUEUE);
    const { measure, answer } = await runBaseline('durable', 'bare-mail-drain.js', { DATABASE_URL: stack.config.DATABASE_URL }, prefix, { queue: BARE_QUEUE });
    expect(answer).toEqual({ type: 'done', sent: MAILS });
    const [{ left }] = await stack.db.query(`SELECT count(*)::int AS left FROM outbox WHERE queue = $1`, [BARE_QUEUE]);
    expect(left).toBe(0);
    await expectConfirmTokens(prefix);
    await stack.db.query('VACUUM outbox');
    return measure;
  }

  /**
   * A baseline's process (dist/bench/baseline/`file`) under BASELINE_NODE_ARGS: started and ready
   * outside the clock, then told to go; its arrivals to `prefix-…` measured, its CPU kept as `side`'s.
   */
  async function runBaseline(side: 'baseline' | 'durable', file: string, env: Record<string, string>, prefix: string, go: object) {
    const child = fork(join(__dirname, '..', 'dist', 'bench', 'baseline', file), {
      env: { PATH: process.env.PATH, SMTP_URL: stack.config.SMTP_URL, PUBLIC_BASE_URL: stack.config.PUBLIC_BASE_URL, ...env },
      stdio: 'inherit',
      execArgv: [...BASELINE_NODE_ARGS, ...(PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`, `--cpu-prof-name=${side}.${round}.cpuprofile`] : [])],
    });
    bare = child;
    const [ready] = (await once(child, 'message')) as [{ type: string }];
    expect(ready.type).toBe('ready');
    const stop = await meter.start();
    const answered = once(child, 'message') as Promise<[{ type: string; sent?: number; message?: string }]>;
    const measure = await arrivals(prefix, async () => {
      child.send({ type: 'go', ...go });
    });
    const [answer] = await answered;
    keep(side, await stop());
    // nodemailer alone has exited of itself by now (it has no backends to count).
    if (child.connected) child.send({ type: 'end' }, () => undefined);
    if (child.exitCode === null) await once(child, 'exit');
    bare = undefined;
    return { measure, answer };
  }

  async function expectConfirmTokens(prefix: string): Promise<void> {
    const [{ n }] = await stack.db.query(`SELECT count(*)::int AS n FROM entry_tokens t JOIN entries e ON e.id = t.entry_id WHERE e.email LIKE $1 AND t.purpose = 'confirm'`, [`${prefix}-%`]);
    expect(n).toBe(MAILS);
  }

  async function service(): Promise<Measure> {
    const prefix = `drain${round}`;
    await seedBacklog(prefix);
    mailer = await AppProcess.start('mailer', stack.config, { nodeArgs: PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : [] });
    const commits = await commitCount(stack.db);
    const stop = await meter.start();
    const measure = await arrivals(prefix, async () => {
      await stack.db.query(`UPDATE outbox SET queue = $1 WHERE queue = $2`, [QueueName.Mail, PARKED]);
    });
    await waitFor(async () => (await stack.db.query(`SELECT count(*)::int AS n FROM outbox WHERE queue = $1`, [QueueName.Mail]))[0].n === 0, 'the handed-over mails to leave the outbox');
    keep('service', await stop());
    process.stdout.write(`service round ${round}: ${((await commitCount(stack.db)) - commits) / MAILS} commits per mail\n`);
    await mailer.stop();
    mailer = undefined;
    const [{ n }] = await stack.db.query(`SELECT count(*)::int AS n FROM entry_tokens t JOIN entries e ON e.id = t.entry_id WHERE e.email LIKE $1 AND t.purpose = 'confirm'`, [`${prefix}-%`]);
    expect(n).toBe(MAILS);
    await stack.db.query('VACUUM outbox');
    return measure;
  }

  /**
   * MAILS pending entries of the product, each with the confirmation mail's outbox row a sign-up
   * leaves (apps/api/src/signups/signups.service.ts: queue, name, data), parked on a queue of their own
   * so that the mailer starts before it sees them.
   */
  async function seedBacklog(prefix: string, queue = PARKED): Promise<void> {
    await stack.db.query(
      `WITH made AS (
         INSERT INTO entries (id, product_id, mode, email, state, created_at)
         SELECT 'ent_' || $2 || '_' || i, $1, 'test', $2 || '-' || i || '@example.com', 'pending', now() FROM generate_series(0, $3::int - 1) AS i
         RETURNING id
       )
       INSERT INTO outbox (queue, name, data, created_at)
       SELECT $4, 'confirmation', jsonb_build_object('entryId', id, 'httpRequestId', 'req-' || id), now() FROM made ORDER BY id`,
      [productId, prefix, MAILS, queue],
    );
    await stack.db.query('ANALYZE entries, outbox');
  }
});
