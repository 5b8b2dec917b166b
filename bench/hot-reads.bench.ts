import autocannon from 'autocannon';
import { ChildProcess, execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { postgresCpu, postgresCpuSince } from './support/cpu';
import { atLeast, cpuMs, Measure, median, perSecond, report, reportMemory, stopBaseline, TARGET_ROUNDS } from './support/harness';
import { AppProcess } from '../test/support/processes';
import { seedHistory } from '../test/support/seed';
import { Stack } from '../test/support/stack';
import { freePort } from '../test/support/throwaway-redis';
import { waitFor } from '../test/support/wait';

const ENTRIES = 100_000;
const CONNECTIONS = 50;
const ROUNDS = Number(process.env.HOT_READS_ROUNDS ?? TARGET_ROUNDS);
const SECONDS = Number(process.env.HOT_READS_SECONDS ?? 5);
/** While profiling: only the reads whose work names contain this text. */
const ONLY = process.env.HOT_READS_ONLY ?? '';
/** Far above what 50 connections reach here, so nothing is refused, but every request is counted. */
const RATE_LIMIT_API = '1000000/1s';
const RSS_MARK_MB = 200;
const ROOT = join(__dirname, '..');
/**
 * The baselines: the service's own queries, the simplest that give the same answers, and the service's
 * own queries with the contract's per-request work (rate limit, request id, headers, metric, log line).
 */
const BASELINES = {
  same: { name: 'bare Fastify + pg, the same SQL, keys in memory', env: { BASELINE_SQL: 'same' } },
  simplest: { name: 'bare Fastify + pg, the simplest SQL, keys in memory', env: { BASELINE_SQL: 'simplest' } },
  contract: {
    name: "bare Fastify + pg, the same SQL and the contract's per-request work",
    env: { BASELINE_SQL: 'same', BASELINE_CONTRACT: '1', RATE_LIMIT_API, LOG_LEVEL: 'silent' },
  },
};
type BaselineSql = keyof typeof BASELINES;
const BASELINE_SQL = Object.keys(BASELINES) as BaselineSql[];

/**
 * The hot reads of a login system's sign-up path (the invited check by POST and GET, verify, the
 * list's first page) at 100,000 entries and 50 connections, in requests per second: the api as a
 * real process (dist/) next to three bare Fastify + pg servers (bench/baseline/hot-reads-server.js)
 * with the keys held in memory: one running the service's own queries, one the simplest SQL for the
 * same answers, and one the service's queries with the contract's per-request work
 * (bench/baseline/contract-work.js), loaded in turn by autocannon. Then the api's resident memory.
 */
describe(`hot reads at ${ENTRIES.toLocaleString('en-US')} entries, ${CONNECTIONS} connections`, () => {
  let stack: Stack;
  let api: AppProcess;
  const baselines = Object.fromEntries(BASELINE_SQL.map((sql) => [sql, { url: '' }])) as Record<BaselineSql, { child?: ChildProcess; url: string }>;
  let secret: string;

  beforeAll(async () => {
    stack = await Stack.start({ apps: [] });
    const cli = join(ROOT, 'dist', 'apps', 'api', 'src', 'cli', 'main.js');
    const { stdout } = await promisify(execFile)('node', [cli, 'products', 'create', '--name', 'Bench', '--json'], {
      env: { PATH: process.env.PATH, DATABASE_URL: stack.config.DATABASE_URL, REDIS_URL: stack.config.REDIS_URL, LOG_LEVEL: 'silent' },
    });
    const product = JSON.parse(stdout) as { id: string; keys: { live: { secret: string } } };
    secret = product.keys.live.secret;
    await seedHistory(stack.db, { productId: product.id, mode: 'live' }, ENTRIES, 'bench');
    // Each invited entry's code is 'code-<entry id>'.
    await stack.db.query(
      `INSERT INTO invite_codes (hash, entry_id, expires_at, created_at, recorded)
       SELECT sha256(convert_to('code-' || id, 'UTF8')), id, now() + interval '30 days', now(), true
       FROM entries WHERE product_id = $1 AND state = 'invited'`,
      [product.id],
    );
    await stack.db.query('VACUUM (ANALYZE) invite_codes');

    const profile = process.env.HOT_READS_PROFILE;
    const nodeArgs = profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [];
    api = await AppProcess.start('api', stack.config, { env: { RATE_LIMIT_API }, nodeArgs });
    for (const sql of BASELINE_SQL) {
      const port = await freePort();
      baselines[sql].child = spawn('node', [...nodeArgs, join(__dirname, 'baseline', 'hot-reads-server.js')], {
        env: { PATH: process.env.PATH, DATABASE_URL: stack.config.DATABASE_URL, REDIS_URL: stack.config.REDIS_URL, PORT: String(port), ...BASELINES[sql].env },
        stdio: 'inherit',
      });
      const url = (baselines[sql].url = `http://127.0.0.1:${port}`);
      await waitFor(() => fetch(`${url}/healthz`).then((response) => response.ok, () => false), `the ${sql}-SQL baseline server to start`);
    }
  });

  afterAll(async () => {
    for (const sql of BASELINE_SQL) await stopBaseline(baselines[sql].child);
    await api?.stop();
    await stack?.stop();
  });

  const someone = () => 1 + Math.floor(Math.random() * ENTRIES);
  /** An invited entry's number: i mod 10 is 7 or 8 (test/support/seed.ts). */
  const invitedOne = () => Math.floor(Math.random() * (ENTRIES / 10 - 1)) * 10 + 7 + (Math.random() < 0.5 ? 0 : 1);
  const json = { 'content-type': 'application/json' };

  /** Each read's target: its rate over either baseline's at least `bound`. */
  const reads: { work: string; request: () => autocannon.Request; bound: number }[] = [
    {
      work: 'invited check, POST',
      request: () => ({ method: 'POST', path: '/api/v1/invited', headers: json, body: JSON.stringify({ email: `bench-${someone()}@example.com` }) }),
      bound: 0.9,
    },
    {
      work: 'invited check, GET',
      request: () => ({ method: 'GET', path: `/api/v1/invited?email=bench-${someone()}%40example.com` }),
      bound: 0.9,
    },
    {
      work: 'verify',
      request: () => ({ method: 'POST', path: '/api/v1/invites/verify', headers: json, body: JSON.stringify({ token: `code-ent_bench${invitedOne()}` }) }),
      bound: 0.9,
    },
    { work: 'list, first page', request: () => ({ method: 'GET', path: '/api/v1/entries' }), bound: 0.9 },
  ];

  /**
   * Requests per second of `seconds` of load, and the server's and PostgreSQL's CPU per request (the
   * backends of the bench's database: only the loaded side's pool is busy); every answer must be a 200.
   */
  async function load(url: string, pid: number, request: () => autocannon.Request, seconds = SECONDS): Promise<Measure & { kind: 'rate'; perSecond: number; cpuUs: number; postgresUs: number }> {
    const backends = await postgresCpu(stack.db);
    const cpuBefore = cpuMs(pid);
    const result = await autocannon({
      url,
      connections: CONNECTIONS,
      duration: seconds,
      requests: [
        {
          setupRequest: (given) => {
            const made = request();
            return { ...given, ...made, headers: { ...given.headers, ...made.headers, authorization: `Bearer ${secret}` } };
          },
        },
      ],
    });
    if (result.non2xx || result.errors || result.timeouts) {
      throw new Error(`${url}: ${result.non2xx} answers other than 2xx, ${result.errors} errors, ${result.timeouts} timeouts`);
    }
    const cpuUs = ((cpuMs(pid) - cpuBefore) * 1000) / result.requests.total;
    const postgresUs = ((await postgresCpuSince(stack.db, backends)) * 1000) / result.requests.total;
    return { kind: 'rate', perSecond: result.requests.total / (result.duration || seconds), cpuUs, postgresUs };
  }

  it('reports requests per second against each bare server, then the api’s RSS', async () => {
    const chosen = reads.filter(({ work }) => work.includes(ONLY));
    for (const { work, request, bound } of chosen) {
      const sides = [
        ...BASELINE_SQL.map((sql) => ({ name: sql, url: baselines[sql].url, pid: baselines[sql].child!.pid! })),
        { name: 'service', url: api.url, pid: api.child.pid! },
      ];
      const seen = new Map(sides.map(({ name }) => [name, { rates: [] as number[], cpuUs: [] as number[], postgresUs: [] as number[] }]));
      // A short warm-up of each side (JIT, pools, caches) before the measured rounds.
      for (const { url, pid } of sides) await load(url, pid, request, 1);
      // In turn (A B C A B C …), which spreads the machine's noise over every side.
      for (let round = 0; round < ROUNDS; round++) {
        for (const { name, url, pid } of sides) {
          const measure = await load(url, pid, request);
          seen.get(name)!.rates.push(measure.perSecond);
          seen.get(name)!.cpuUs.push(measure.cpuUs);
          seen.get(name)!.postgresUs.push(measure.postgresUs);
        }
      }
      const service = seen.get('service')!;
      const listed = (rates: number[]) => rates.map(perSecond).join(', ');
      const microseconds = (values: number[]) => `${Math.round(median(values))} µs`;
      for (const sql of BASELINE_SQL) {
        const baseline = seen.get(sql)!;
        report({
          work: `${work}, ${ENTRIES.toLocaleString('en-US')} entries, ${CONNECTIONS} connections`,
          baseline: BASELINES[sql].name,
          baselineValue: perSecond(median(baseline.rates)),
          serviceValue: perSecond(median(service.rates)),
          ...atLeast(median(service.rates) / median(baseline.rates), bound),
          note:
            `rounds: baseline ${listed(baseline.rates)}; service ${listed(service.rates)}; ` +
            `server CPU per request (median): baseline ${microseconds(baseline.cpuUs)}, service ${microseconds(service.cpuUs)}; ` +
            `PostgreSQL's: baseline ${microseconds(baseline.postgresUs)}, service ${microseconds(service.postgresUs)}`,
        });
      }
    }
    reportMemory('api RSS after the hot-read run', api.child.pid!, RSS_MARK_MB, `the api process's resident memory after ${chosen.length} × ${ROUNDS + 1} runs of ${CONNECTIONS} connections`);
  });
});
