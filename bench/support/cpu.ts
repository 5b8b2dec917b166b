import Redis from 'ioredis';
import type { DataSource } from 'typeorm';
import { cpuMs } from './harness';

/** The CPU time of each client backend of the database `db` is connected to, in ms, by its pid. */
export async function postgresCpu(db: DataSource): Promise<Map<number, number>> {
  const backends: { pid: number }[] = await db.query(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend'`);
  const cpu = new Map<number, number>();
  for (const { pid } of backends) {
    try {
      cpu.set(pid, cpuMs(pid));
    } catch {
      // gone meanwhile
    }
  }
  return cpu;
}

/** The CPU the backends used since `before` (a backend that ended meanwhile takes its share with it). */
export async function postgresCpuSince(db: DataSource, before: Map<number, number>): Promise<number> {
  let sum = 0;
  for (const [pid, ms] of await postgresCpu(db)) sum += ms - (before.get(pid) ?? 0);
  return sum;
}

/** The database's committed transactions so far (each statement outside a transaction is one). */
export async function commitCount(db: DataSource): Promise<number> {
  // The statistics of this backend's own transactions reach the view when it is next idle.
  await db.query('SELECT pg_stat_clear_snapshot()');
  return Number((await db.query(`SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()`))[0].xact_commit);
}

/** The pid of the Redis server at `url`, as it reports it (the shared local server, so its /proc is readable). */
export async function redisPid(url: string): Promise<number> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    return Number(/process_id:(\d+)/.exec(await redis.info('server'))![1]);
  } finally {
    redis.disconnect();
  }
}

/** CPU ms by group: named processes, PostgreSQL's backends of the database, and this process. */
export type CpuByGroup = Record<string, number>;

/**
 * CPU of every process a piece of work runs on, from /proc: the named processes (the apps, a baseline,
 * redis-server), the client backends of the bench's database (each counted on its own, so that one a
 * pool opened meanwhile counts in full), and this jest process ('bench': load, SMTP sink, receivers).
 */
export class CpuMeter {
  constructor(
    private readonly db: DataSource,
    /** Group name → the pids whose CPU it sums (a process not started yet or gone counts nothing). */
    private readonly groups: () => Record<string, number[]>,
  ) {}

  /** Starts a measurement; the function it returns gives each group's CPU ms since. */
  async start(): Promise<() => Promise<CpuByGroup>> {
    const before = this.named();
    const backends = await postgresCpu(this.db);
    const self = process.cpuUsage();
    return async () => {
      const after = this.named();
      const used: CpuByGroup = {};
      for (const name of Object.keys(after)) used[name] = after[name] - (before[name] ?? 0);
      used.postgres = await postgresCpuSince(this.db, backends);
      const { user, system } = process.cpuUsage(self);
      used.bench = (user + system) / 1000;
      return used;
    };
  }

  private named(): CpuByGroup {
    const sums: CpuByGroup = {};
    for (const [name, pids] of Object.entries(this.groups())) {
      sums[name] = 0;
      for (const pid of pids) {
        try {
          sums[name] += cpuMs(pid);
        } catch {
          // not running
        }
      }
    }
    return sums;
  }
}

/** Each group's CPU per operation, in ms with two decimals ('api 1.23 ms, postgres 2.01 ms, …'), and their sum over every group but the bench's own. */
export function perOperation(used: CpuByGroup, operations: number): { text: string; totalMs: number } {
  const entries = Object.entries(used).filter(([, ms]) => ms > 0);
  const totalMs = entries.filter(([name]) => name !== 'bench').reduce((sum, [, ms]) => sum + ms, 0) / operations;
  const text = entries.map(([name, ms]) => `${name} ${(ms / operations).toFixed(2)} ms`).join(', ');
  return { text: `${text}; sum without the bench process ${totalMs.toFixed(2)} ms`, totalMs };
}
