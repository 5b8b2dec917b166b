import { Job, UnrecoverableError } from 'bullmq';
import type { DataSource, EntityManager } from 'typeorm';
import { OutboxMessage } from '../database/entities';
import { groupCommits } from '../database/group-commits';
import type { JobData, JobName, QueueName } from '../queues/contract';

/** How long a consumer may work on one outbox job before the reconciler may hand it out again. */
export const OUTBOX_LEASE_MS = 2 * 60_000;

const JOB_ID_PREFIX = 'outbox-';

/**
 * Puts a job in the outbox inside the caller's transaction: it reaches its queue only if the
 * transaction commits, and it is not lost when Redis or the worker is down at that moment.
 */
export async function enqueue<Q extends QueueName, N extends JobName<Q>>(
  manager: EntityManager,
  queue: Q,
  name: N,
  data: JobData<Q, N>,
  createdAt: Date,
): Promise<void> {
  await enqueueEach(manager, queue, name, [data], createdAt);
}

/** enqueue for several jobs of one name, in one statement. */
export async function enqueueEach<Q extends QueueName, N extends JobName<Q>>(
  manager: EntityManager,
  queue: Q,
  name: N,
  data: JobData<Q, N>[],
  createdAt: Date,
): Promise<void> {
  await manager.insert(
    OutboxMessage,
    data.map((one) => ({ queue, name, data: one as object, createdAt })),
  );
}

/** The job id under which the relay adds an outbox row, so that one row is one job while it exists. */
export function outboxJobId(rowId: string): string {
  return `${JOB_ID_PREFIX}${rowId}`;
}

/**
 * Does the work of jobs that came from the outbox. The row stays until the work is done or given up,
 * so a job that Redis lost is added again by the relay's reconciler; while the work runs the row is
 * leased, so the reconciler never hands out a second copy of work in progress. A job whose row is gone
 * was done already (by an earlier copy) and does nothing. The leases and deletions of the jobs in
 * flight are written in batches (groupCommits): a statement per batch, not per job.
 */
export class OutboxJobs {
  private readonly lease = groupCommits<string, boolean>(async (rowIds) => {
    // TypeORM answers an UPDATE with its rows and its count.
    const [leased]: [{ id: string }[], number] = await this.db.query(
      `UPDATE outbox SET leased_until = now() + $2 * interval '1 millisecond' WHERE id = ANY($1::bigint[]) RETURNING id`,
      [rowIds, OUTBOX_LEASE_MS],
    );
    const found = new Set(leased.map((row) => row.id));
    return rowIds.map((id) => found.has(id));
  });
  private readonly remove = groupCommits<string, void>(async (rowIds) => {
    await this.db.query(`DELETE FROM outbox WHERE id = ANY($1::bigint[])`, [rowIds]);
    return rowIds.map(() => undefined);
  });

  constructor(private readonly db: DataSource) {}

  async work(job: Job, work: () => Promise<void>): Promise<void> {
    if (!job.id?.startsWith(JOB_ID_PREFIX)) return work();
    const rowId = job.id.slice(JOB_ID_PREFIX.length);
    if (!(await this.lease(rowId))) return;
    try {
      await work();
    } catch (error) {
      const retried = !(error instanceof UnrecoverableError) && job.attemptsMade + 1 < (job.opts.attempts ?? 1);
      if (retried) await this.db.query(`UPDATE outbox SET leased_until = NULL WHERE id = $1`, [rowId]);
      else await this.remove(rowId);
      throw error;
    }
    await this.remove(rowId);
  }
}
