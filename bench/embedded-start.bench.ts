import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { admin, databaseUrl } from '../test/support/databases';
import { alive, descendants, NpmStart } from '../test/support/npm-start';
import { deleteKeys } from '../test/support/stack';
import { freePort } from '../test/support/throwaway-redis';
import { waitFor } from '../test/support/wait';
import { median, report, reportMegabytes, seconds, withinSeconds } from './support/harness';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ROOT = join(__dirname, '..');
/** Issue 26's marks: seconds from `npm start` to ready, from Ctrl-C to exit, and the servers' memory. */
const FIRST_START_MARK_S = 20;
const LATER_START_MARK_S = 10;
const STOP_MARK_S = 15;
const SERVERS_MARK_MB = 150;

interface Memory {
  /** Proportional set sizes: a page shared by n processes counts 1/n in each (PostgreSQL's shared buffers). */
  pssMb: number;
  /** The host's share of it: a Node.js process that only starts and stops the servers. */
  hostPssMb: number;
  rssMb: number;
  processes: number;
}

interface Run {
  /** Until npm start says where PostgreSQL and Redis are: the embedded servers are up by then. */
  serversMs: number;
  readyMs: number;
  stopMs: number;
  memory?: Memory;
}

/** A field of /proc/<pid>/<file> in kB, or 0 for a process gone meanwhile (a PostgreSQL worker that ended). */
function kb(pid: number, file: string, field: string): number {
  try {
    return Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/${file}`, 'utf8'))![1]);
  } catch {
    return 0;
  }
}

/** The embedded servers' memory: their host process, the postmaster with every child, redis-server. */
function serversMemory(processes: number[]): Memory {
  const host = processes.find((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('scripts/embedded/host.js');
    } catch {
      return false;
    }
  });
  if (!host) throw new Error('No embedded servers host among the processes of npm start');
  const servers = descendants(host);
  const sum = (file: string, field: string) => servers.reduce((total, pid) => total + kb(pid, file, field), 0) / 1024;
  return { pssMb: sum('smaps_rollup', 'Pss'), hostPssMb: kb(host, 'smaps_rollup', 'Pss') / 1024, rssMb: sum('status', 'VmRSS'), processes: servers.length };
}

/** One `npm start` until it says it is ready, then a Ctrl-C to its group until every process it ran is gone. */
async function startAndStop(env: NodeJS.ProcessEnv, port: number, embedded: boolean): Promise<Run> {
  const service = await NpmStart.start(env, port);
  try {
    expect(service.said(embedded ? 'PostgreSQL: embedded' : 'from DATABASE_URL')).toBe(true);
    const processes = service.descendants();
    const memory = embedded ? serversMemory(processes) : undefined;
    const stopMs = await service.interrupt();
    await waitFor(() => processes.every((pid) => !alive(pid)), 'every process npm start ran to be gone', { timeoutMs: 2000 });
    return { serversMs: service.saidAtMs('PostgreSQL: '), readyMs: service.readyMs, stopMs, memory };
  } finally {
    if (service.running) await service.interrupt();
  }
}

/**
 * `npm start` with nothing configured (an embedded PostgreSQL and the redis-server on PATH, data in a
 * fresh folder under .data/): seconds until "Waitlist is ready" at the first start, which initialises
 * the folder, and at a later start on it; seconds from Ctrl-C to exit; the servers' memory once
 * ready. Next to the same starts and stops with DATABASE_URL and REDIS_URL set to the running servers
 * the benchmarks use (a fresh database and queue prefix each round), which is what the embedded servers
 * add. Rounds alternate A B A B, each with fresh folders, database and prefix.
 */
describe('npm start with the embedded defaults', () => {
  it(`is ready within ${FIRST_START_MARK_S} s at the first start, ${LATER_START_MARK_S} s at a later one, and stops within ${STOP_MARK_S} s`, async () => {
    const own = { first: [] as Run[], later: [] as Run[] };
    const embedded = { first: [] as Run[], later: [] as Run[] };
    for (let round = 0; round < ROUNDS; round++) {
      const id = randomBytes(4).toString('hex');
      const dataDir = join(ROOT, '.data', `bench-start-${id}`);
      // The baseline's start keeps only the demo product's keys there.
      const ownDir = join(ROOT, '.data', `bench-start-own-${id}`);
      const database = `waitlist_bench_start_${id}`;
      const prefix = `bench-start-${id}`;
      const port = await freePort();
      const bare = { PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(port) };
      const embeddedEnv = { ...bare, EMBEDDED_DATA_DIR: dataDir };
      const ownEnv = { ...bare, EMBEDDED_DATA_DIR: ownDir, DATABASE_URL: databaseUrl(database), REDIS_URL: process.env.REDIS_URL, QUEUE_PREFIX: prefix };
      try {
        own.first.push(await startAndStop(ownEnv, port, false));
        embedded.first.push(await startAndStop(embeddedEnv, port, true));
        own.later.push(await startAndStop(ownEnv, port, false));
        embedded.later.push(await startAndStop(embeddedEnv, port, true));
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
        rmSync(ownDir, { recursive: true, force: true });
        await admin((client) => client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
        await deleteKeys(process.env.REDIS_URL!, `${prefix}*`);
      }
      const [a, b, c, d] = [own.first[round], embedded.first[round], own.later[round], embedded.later[round]];
      console.log(
        `round ${round + 1}: first start ${seconds(a.readyMs)} own servers, ${seconds(b.readyMs)} embedded (servers up at ${seconds(b.serversMs)}); ` +
          `later start ${seconds(c.readyMs)} own, ${seconds(d.readyMs)} embedded (servers up at ${seconds(d.serversMs)}); ` +
          `stop ${seconds(a.stopMs)}, ${seconds(b.stopMs)}, ${seconds(c.stopMs)}, ${seconds(d.stopMs)}; ` +
          `servers ${summary(b.memory!)} at the first start, ${summary(d.memory!)} at the later`,
      );
    }

    const ready = (runs: Run[]) => median(runs.map((run) => run.readyMs));
    const each = (runs: Run[]) => runs.map((run) => seconds(run.readyMs)).join(', ');
    const serversUp = (runs: Run[]) => seconds(median(runs.map((run) => run.serversMs)));
    const baseline = 'the same start on running PostgreSQL and Redis (DATABASE_URL, REDIS_URL)';
    for (const [kind, mark] of [['first', FIRST_START_MARK_S], ['later', LATER_START_MARK_S]] as const) {
      report({
        work: kind === 'first' ? 'npm start to ready, first start (initialises .data/)' : 'npm start to ready, a later start',
        baseline,
        baselineValue: seconds(ready(own[kind])),
        serviceValue: seconds(ready(embedded[kind])),
        ...withinSeconds(ready(embedded[kind]), ready(own[kind]), mark),
        note:
          `rounds: embedded ${each(embedded[kind])}; own servers ${each(own[kind])}; ` +
          `servers up (the "PostgreSQL:" line) at ${serversUp(embedded[kind])} embedded, ${serversUp(own[kind])} own (medians)`,
      });
    }

    const embeddedRuns = [...embedded.first, ...embedded.later];
    const ownRuns = [...own.first, ...own.later];
    const stop = (runs: Run[]) => median(runs.map((run) => run.stopMs));
    report({
      work: 'Ctrl-C to exit, embedded defaults',
      baseline: 'the same stop with running PostgreSQL and Redis',
      baselineValue: seconds(stop(ownRuns)),
      serviceValue: seconds(stop(embeddedRuns)),
      ...withinSeconds(stop(embeddedRuns), stop(ownRuns), STOP_MARK_S),
      note: `every stop: embedded ${embeddedRuns.map((run) => seconds(run.stopMs)).join(', ')}; own servers ${ownRuns.map((run) => seconds(run.stopMs)).join(', ')}`,
    });

    // The first starts' servers hold a little more (the migrations ran on them): their median is the row.
    const pss = (runs: Run[]) => median(runs.map((run) => run.memory!.pssMb));
    reportMegabytes(
      'embedded servers once ready (host, PostgreSQL, redis-server; Pss)',
      pss(embedded.first),
      SERVERS_MARK_MB,
      `the proportional set size (a page shared by n processes counts 1/n in each) of the servers' host process, the postmaster ` +
        `with its children and redis-server once ready, median of the first starts (${embedded.first.map((run) => summary(run.memory!)).join('; ')}); ` +
        `the later starts' median ${Math.round(pss(embedded.later))} MB`,
    );
  });
});

const summary = (memory: Memory) =>
  `${Math.round(memory.pssMb)} MB Pss, the host's ${Math.round(memory.hostPssMb)} MB of it (${Math.round(memory.rssMb)} MB RSS summed), in ${memory.processes} processes`;
