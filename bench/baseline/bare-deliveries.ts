import { Pool, PoolClient } from 'pg';
import { request } from 'undici';
import { FAN_OUT_LOCK, LOCK, READ, UNLOCK } from '../../apps/webhooks/src/claims';
import { deliveryId, signingHeaders } from '../../libs/shared/src/domain/webhooks';
import { pagedWorkers } from './paged-workers';

/**
 * The bare work of logged deliveries, as the deliveries benchmark's second baseline: what any
 * implementation of "every delivery logged, at least once" must do between an event's commit and its
 * logged 2xx, with nothing of the service around it. One process reads the committed outbox rows in
 * pages (with their events' type), POSTs each signed body with plain undici at the service's
 * concurrency, and writes what it posted in one statement per batch of finished POSTs: the deliveries'
 * rows, the same rows the service writes, and the deletion of their outbox rows (the two row writes a
 * delivery needs). No claims (it is the only reader), no retries, timeouts, metrics or logs.
 * With `claims`, it claims as the fan-out does, so that more than one process may drain a queue: the
 * fan-out's own statements (lock, read with the endpoints that want each event and have no delivery
 * of it yet, unlock once written) on a connection of their own, and nothing else of the service.
 * Run forked (dist/bench/baseline) with DATABASE_URL; on { type: 'go', queue, endpoint, concurrency, claims }
 * it drains that outbox queue and answers { type: 'done', logged }.
 */
interface Go {
  queue: string;
  endpoint: { id: string; url: string; secret: string };
  concurrency: number;
  claims?: boolean;
}

interface Row {
  id: string;
  eventId: string;
  eventType: string;
  body: string;
}

interface Posted {
  row: Row;
  deliveryId: string;
  attemptedAt: Date;
  statusCode: number;
  durationMs: number;
}

/** Outbox rows read at a time: as many as the service's fan-out claims at most. */
const PAGE = 150;

// Connections kept while idle between rounds, so that the benchmark counts their backends' CPU throughout.
const db = new Pool({ connectionString: process.env.DATABASE_URL, max: 10, idleTimeoutMillis: 0 });

/** The fan-out's claims: the rows after `after`, locked on `locks`, with their events and endpoints, as Claims.take reads them. */
async function claim(locks: PoolClient, queue: string, after: string): Promise<{ ids: string[]; rows: Row[] }> {
  const ids = (await locks.query<{ id: string }>({ name: 'lock', text: LOCK, values: [queue, PAGE, [], FAN_OUT_LOCK, after] })).rows.map((row) => row.id);
  if (!ids.length) return { ids, rows: [] };
  const read = await locks.query<Row & { outboxId: string }>({ name: 'read', text: READ, values: [ids] });
  return { ids, rows: read.rows.map(({ outboxId, eventId, eventType, body }) => ({ id: outboxId, eventId, eventType, body })) };
}

async function drain({ queue, endpoint, concurrency, claims }: Go): Promise<number> {
  let failed: Error | undefined;
  const waiting: Row[] = [];
  let after = '0';
  let exhausted = false;
  let reading: Promise<void> | undefined;
  const locks = claims ? await db.connect() : undefined;
  // Planned at each claim, as the fan-out's are (see Claims.connection).
  await locks?.query('SET plan_cache_mode = force_custom_plan');
  const read = () =>
    (reading ??= (
      locks
        ? claim(locks, queue, after)
        : db
            // Planned at each read (unnamed), for the tables as they are: a kept plan made while they were small would scan them.
            .query<Row>({
              text: `SELECT o.id, e.id AS "eventId", e.type AS "eventType", o.body FROM outbox o JOIN events e ON e.id = o.data->>'eventId'
                     WHERE o.queue = $1 AND o.published_at IS NULL AND o.id > $2 ORDER BY o.id LIMIT $3`,
              values: [queue, after, PAGE],
            })
            .then(({ rows }) => ({ ids: rows.map((row) => row.id), rows }))
    )
      .then(({ ids, rows }) => {
        if (ids.length) after = ids[ids.length - 1];
        exhausted = ids.length < PAGE;
        waiting.push(...rows);
      })
      .catch((error: Error) => void (failed ??= error))
      .finally(() => (reading = undefined)));

  const posted: Posted[] = [];
  let logged = 0;
  let writing: Promise<void> | undefined;
  const write = async (batch: Posted[]) => {
    const result = await db.query({
      name: 'write',
      text: `WITH done AS (DELETE FROM outbox WHERE id = ANY ($1::bigint[]))
             INSERT INTO deliveries (id, endpoint_id, event_id, event_type, status, created_at, finished_at, attempted_at, status_code, duration_ms)
             SELECT v.id, $2, v.event_id, v.event_type, 'succeeded', v.attempted_at, now(), v.attempted_at, v.status_code, v.duration_ms
             FROM unnest($3::text[], $4::text[], $5::text[], $6::timestamptz[], $7::int[], $8::int[]) AS v (id, event_id, event_type, attempted_at, status_code, duration_ms)
             ON CONFLICT (endpoint_id, event_id) DO NOTHING`,
      values: [
        batch.map((p) => p.row.id),
        endpoint.id,
        batch.map((p) => p.deliveryId),
        batch.map((p) => p.row.eventId),
        batch.map((p) => p.row.eventType),
        batch.map((p) => p.attemptedAt),
        batch.map((p) => p.statusCode),
        batch.map((p) => p.durationMs),
      ],
    });
    logged += result.rowCount ?? 0;
    await locks?.query({ name: 'unlock', text: UNLOCK, values: [FAN_OUT_LOCK, batch.map((p) => p.row.id)] });
  };
  // One write at a time, of everything posted meanwhile (a group commit).
  const flush = () =>
    (writing ??= (async () => {
      while (posted.length) await write(posted.splice(0));
    })().finally(() => (writing = undefined)));

  const post = async (row: Row) => {
    const attemptedAt = new Date();
    const unixSeconds = Math.floor(attemptedAt.getTime() / 1000);
    const id = deliveryId(endpoint.id, row.eventId);
    const response = await request(endpoint.url, {
      method: 'POST',
      body: row.body,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'waitlist-webhooks/1',
        ...signingHeaders('service', [endpoint.secret], { eventId: row.eventId, body: row.body, unixSeconds }),
        'service-event': row.eventType,
        'service-delivery': id,
      },
    });
    await response.body.dump();
    if (response.statusCode !== 200) throw new Error(`The receiver answered ${response.statusCode}`);
    posted.push({ row, deliveryId: id, attemptedAt, statusCode: response.statusCode, durationMs: Date.now() - attemptedAt.getTime() });
    flush().catch((error: Error) => (failed ??= error));
  };

  await pagedWorkers(concurrency, { waiting, exhausted: () => exhausted, failed: () => failed !== undefined, read }, post);
  while (writing || posted.length) await flush();
  await locks?.query('RESET plan_cache_mode');
  locks?.release();
  if (failed) throw failed;
  return logged;
}

process.on('message', (message: { type: string } & Go) => {
  if (message.type !== 'go') return;
  drain(message).then(
    (logged) => process.send!({ type: 'done', logged }),
    (error: Error) => process.send!({ type: 'failed', message: error.message }),
  );
});
// A graceful end, so that a --cpu-prof profile is written.
process.once('SIGTERM', () => void db.end().then(() => process.exit(0)));
