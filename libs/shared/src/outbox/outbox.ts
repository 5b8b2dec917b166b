import type { EntityManager } from 'typeorm';
import { OutboxMessage } from '../database/entities';
import type { JobData, JobName, QueueName } from '../queues/contract';

/**
 * Puts a job in the outbox inside the caller's transaction: its worker, which reads the outbox itself,
 * sees it only if the transaction commits, and it is not lost when Redis or the worker is down then.
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
