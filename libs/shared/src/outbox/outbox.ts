import type { EntityManager } from 'typeorm';
import { OutboxMessage } from '../database/entities';
import type { JobData, JobName, QueueName } from '../queues/contract';

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
  await manager.insert(OutboxMessage, { queue, name, data: data as object, createdAt });
}
