import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { keyedQuery } from '../database/prepared';
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
  // One statement over an array, whatever the count: the ORM's insert builds a parameter per value.
  await manager.query(`INSERT INTO outbox (queue, name, data, created_at) SELECT $1, $2, data, $4 FROM unnest($3::jsonb[]) AS job (data)`, [
    queue,
    name,
    data.map((one) => JSON.stringify(one)),
    createdAt,
  ]);
}

/** Deletes outbox rows by id, as a worker does once their jobs are done. */
export async function removeOutboxRows(on: DataSource | QueryRunner, ids: readonly string[]): Promise<void> {
  await keyedQuery(on, `DELETE FROM outbox WHERE id = ANY($1::bigint[])`, [ids]);
}
