import { Job, UnrecoverableError } from 'bullmq';
import type { DataSource, EntityManager } from 'typeorm';
import { OutboxMessage } from '../database/entities';
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
 * Does the work of a job that came from the outbox. The row stays until the work is done or given
 * up, so a job that Redis lost is added again by the relay's reconciler; while the work runs the row
 * is leased, so the reconciler never hands out a second copy of work in progress. A job whose row is
 * gone was done already (by an earlier copy) and does nothing.
 */
export async function workOnOutboxJob(db: DataSource, job: Job, work: () => Promise<void>): Promise<void> {
  if (!job.id?.startsWith(JOB_ID_PREFIX)) return work();
  const rowId = job.id.slice(JOB_ID_PREFIX.length);
  const [, leased]: [unknown, number] = await db.query(
    `UPDATE outbox SET leased_until = now() + $2 * interval '1 millisecond' WHERE id = $1`,
    [rowId, OUTBOX_LEASE_MS],
  );
  if (leased === 0) return;
  try {
    await work();
  } catch (error) {
    const retried = !(error instanceof UnrecoverableError) && job.attemptsMade + 1 < (job.opts.attempts ?? 1);
    await db.query(retried ? `UPDATE outbox SET leased_until = NULL WHERE id = $1` : `DELETE FROM outbox WHERE id = $1`, [rowId]);
    throw error;
  }
  await db.query(`DELETE FROM outbox WHERE id = $1`, [rowId]);
}
