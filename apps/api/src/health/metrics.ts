import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { getDataSourceToken } from '@nestjs/typeorm';
import { Metrics, QueueName, withTimeout } from '@app/shared';
import type { Gauge } from 'prom-client';
import type { DataSource } from 'typeorm';
import type { RequestLog } from '../common/request-log';
import { JobQueues } from '../common/job-queues';

/** A scrape waits this long for Redis and PostgreSQL; what does not answer is left out of that scrape. */
const COLLECT_TIMEOUT_MS = 1000;
const JOB_STATES = ['waiting', 'active', 'delayed', 'failed'] as const;
/** The queues whose work waits in the outbox. */
const OUTBOX_QUEUES = [QueueName.Mail, QueueName.Webhooks, QueueName.Reminders, QueueName.PersonalData];

/**
 * The api's /metrics: every request's latency by method, route template and status (an unknown path
 * is "unmatched", so no URL becomes a label), and, read at each scrape, the jobs in each BullMQ queue
 * by state with its workers, and the outbox rows waiting with the age of the oldest. Queues and outbox
 * are the same for every replica: any one api's scrape shows them. GET /metrics asks for
 * METRICS_TOKEN as a Bearer token when it is set.
 */
export function registerMetrics(app: NestFastifyApplication, requestLog: RequestLog): void {
  const fastify = app.getHttpAdapter().getInstance();
  const metrics = app.get(Metrics);
  const db = app.get<DataSource>(getDataSourceToken());
  const queues = app.get(JobQueues).all;

  const requests = metrics.histogram({
    name: 'waitlist_http_request_duration_seconds',
    help: 'HTTP requests by method, route template and status, and how long their answers took',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  });
  requestLog.onCompleted((request, reply) => {
    requests.observe({ method: request.method, route: request.routeOptions.url ?? 'unmatched', status: reply.statusCode }, reply.elapsedTime / 1000);
  });

  // Each family's collect() runs side by side in a scrape: they share one read of Redis, and one of PostgreSQL.
  const readQueues = sharedWhileRunning(() =>
    withTimeout(
      Promise.all(queues.map(async (queue) => ({ queue: queue.name, counts: await queue.getJobCounts(...JOB_STATES), workers: await queue.getWorkersCount() }))),
      COLLECT_TIMEOUT_MS,
      'reading the queues',
    ).catch(() => null),
  );
  const readOutbox = sharedWhileRunning(() =>
    withTimeout<{ queue: string; count: number; age: number }[]>(
      db.query(`SELECT queue, count(*)::int AS count, COALESCE(extract(epoch FROM now() - min(created_at)), 0)::float AS age FROM outbox GROUP BY queue`),
      COLLECT_TIMEOUT_MS,
      'reading the outbox',
    ).catch(() => null),
  );
  metrics.gauge({
    name: 'waitlist_queue_jobs',
    help: 'Jobs in each BullMQ queue by state',
    labelNames: ['queue', 'state'],
    async collect() {
      this.reset();
      for (const { queue, counts } of (await readQueues()) ?? []) for (const state of JOB_STATES) this.set({ queue, state }, counts[state] ?? 0);
    },
  });
  metrics.gauge({
    name: 'waitlist_queue_workers',
    help: 'Workers connected to each BullMQ queue',
    labelNames: ['queue'],
    async collect() {
      this.reset();
      for (const { queue, workers } of (await readQueues()) ?? []) this.set({ queue }, workers);
    },
  });
  metrics.gauge({
    name: 'waitlist_queue_collected',
    help: '1 when this scrape read the queues from Redis, 0 when Redis did not answer in time',
    async collect() {
      this.set((await readQueues()) ? 1 : 0);
    },
  });
  const outbox = (field: 'count' | 'age') =>
    async function (this: Gauge<'queue'>) {
      this.reset();
      const rows = await readOutbox();
      if (rows) for (const queue of OUTBOX_QUEUES) this.set({ queue }, rows.find((row) => row.queue === queue)?.[field] ?? 0);
    };
  metrics.gauge({ name: 'waitlist_outbox_rows', help: 'Outbox rows waiting for their worker, by queue', labelNames: ['queue'], collect: outbox('count') });
  metrics.gauge({
    name: 'waitlist_outbox_oldest_age_seconds',
    help: 'Age of the oldest outbox row, by queue (0 when none waits)',
    labelNames: ['queue'],
    collect: outbox('age'),
  });
  metrics.gauge({
    name: 'waitlist_outbox_collected',
    help: '1 when this scrape read the outbox from PostgreSQL, 0 when it did not answer in time',
    async collect() {
      this.set((await readOutbox()) ? 1 : 0);
    },
  });

  fastify.get('/metrics', async (request, reply) => {
    const { status, contentType, body } = await metrics.scrape(request.headers.authorization);
    return reply.status(status).type(contentType).send(body);
  });
}

/** `read`, run once for all who ask while it runs. */
function sharedWhileRunning<T>(read: () => Promise<T>): () => Promise<T> {
  let running: Promise<T> | undefined;
  return () => (running ??= read().finally(() => (running = undefined)));
}
