import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { preparedQuery, QueueName } from '@app/shared';
import { DataSource, QueryRunner } from 'typeorm';
import { Endpoint } from './attempts';

/** The advisory lock class of the fan-out's claims (the api's are 727_001 and 727_002). */
export const FAN_OUT_LOCK = 727_003;

/**
 * A claim's statements, exported for the deliveries benchmark's baseline that claims as the fan-out
 * does. The lock: up to $2 rows of queue $1 past id $5 that no one holds, this process's own ($3) left
 * out, locked under class $4; the candidates are bounded first, so that no plan locks a row it does
 * not return (an id 2³¹ from one held shares its lock and waits a round).
 */
export const LOCK = `SELECT id, older FROM (
   SELECT id, body IS NULL AS older FROM outbox WHERE queue = $1 AND published_at IS NULL AND id > $5 AND id <> ALL ($3::bigint[]) ORDER BY id LIMIT 4 * $2
 ) candidate WHERE pg_try_advisory_lock($4, (id % 2147483648)::int) LIMIT $2`;

/** The claimed rows ($1) with what their first attempts need; see Claims.take. */
export const READ = `SELECT "outboxId", "eventId", "eventType", "eventCreatedAt", body, "endpointId",
       -- An endpoint's columns come once per claim: a sealed secret on every row was garbage to parse.
       CASE WHEN first THEN url END AS url, CASE WHEN first THEN secret END AS secret, CASE WHEN first THEN "previousSecret" END AS "previousSecret",
       CASE WHEN first THEN "previousSecretUntil" END AS "previousSecretUntil", CASE WHEN first THEN "signatureFormat" END AS "signatureFormat"
     FROM (
     SELECT o.id AS "outboxId", o.data->>'eventId' AS "eventId", e.type AS "eventType", e.created_at AS "eventCreatedAt", COALESCE(o.body, e.body) AS body,
       w.id AS "endpointId", w.url, w.secret, w.previous_secret AS "previousSecret", w.previous_secret_until AS "previousSecretUntil", w.signature_format AS "signatureFormat",
       w.id IS NOT NULL AND row_number() OVER (PARTITION BY w.id) = 1 AS first
     FROM outbox o
     -- OFFSET 0 keeps each lateral read a per-row lookup by key: a plan may otherwise hash the whole
     -- events or deliveries table at every claim (their statistics lag behind a burst).
     LEFT JOIN LATERAL (SELECT * FROM events WHERE id = o.data->>'eventId' OFFSET 0) e ON true
     LEFT JOIN LATERAL (
       SELECT * FROM webhook_endpoints w
       WHERE w.product_id = e.product_id AND w.mode = e.mode
         AND CASE WHEN o.data->>'endpointId' IS NULL THEN w.disabled_at IS NULL AND e.type = ANY (w.events) ELSE w.id = o.data->>'endpointId' END
         AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.endpoint_id = w.id AND d.event_id = e.id)
       OFFSET 0
     ) w ON COALESCE(o.body, e.body) IS NOT NULL
     WHERE o.id = ANY ($1::bigint[])
     ) claimed`;

/** Lets go of rows $2 locked under class $1. */
export const UNLOCK = `SELECT count(pg_advisory_unlock($1, (id % 2147483648)::int)) FROM unnest($2::bigint[]) AS id`;

/** An outbox row's event with one endpoint that has no delivery of it yet, or with none. */
export interface Claimed {
  outboxId: string;
  eventId: string;
  eventType: string;
  eventCreatedAt: Date;
  body: string | null;
  endpointId: string | null;
  /** One object per endpoint and claim, shared by its rows; null with endpointId. */
  endpoint: Endpoint | null;
}

/** A claimed row as read: the endpoint's columns only on the first row of each endpoint. */
type Read = Omit<Claimed, 'endpoint'> & Partial<Endpoint>;

/** A claimed outbox row: its deliveries not yet in a batch, those in batches under way, and whether every batch so far was written. */
interface Open {
  left: number;
  writing: number;
  whole: boolean;
}

/**
 * The fan-out's claims on outbox rows: PostgreSQL advisory locks, held on a connection of their own
 * from the claim until the row's deliveries are logged. A claim writes nothing (a row lock would be a
 * write per row and keep a transaction open across the POSTs), and it ends with its process: a process
 * that dies leaves its rows to the others, whose recheck posts only the deliveries it did not log. An
 * outbox row is deleted in the batch that logs the last of its deliveries, and only if every batch
 * that logged the others was written; otherwise it stays, and its next claim finds what is missing.
 */
@Injectable()
export class Claims implements OnApplicationShutdown {
  private runner: QueryRunner | undefined;
  private readonly open = new Map<string, Open>();
  /**
   * Claims look past the last row claimed, not at the rows this process still holds at the head of the
   * queue (each claim would read them all again); once a claim comes up short, the next one starts
   * from the head again, for rows let go without being deleted and those of a process that died.
   */
  private after = '0';

  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * Claims up to `limit` outbox rows no one else holds: what their first attempts need, one row per
   * endpoint without a delivery (or one with none, for a row nobody wants), and how many rows it took.
   */
  async take(limit: number): Promise<{ taken: number; rows: Claimed[] }> {
    const runner = await this.connection();
    const after = BigInt(this.after);
    // This process's own rows are left out: a lock it holds would be taken again.
    const held = [...this.open.keys()].filter((id) => BigInt(id) > after);
    const locked = await preparedQuery<{ id: string; older: boolean }>(runner, LOCK, [QueueName.Webhooks, limit, held, FAN_OUT_LOCK, this.after]);
    this.after = locked.length < limit ? '0' : locked[locked.length - 1].id;
    if (locked.length === 0) return { taken: 0, rows: [] };
    const ids = locked.map((row) => row.id);
    for (const id of ids) this.open.set(id, { left: 0, writing: 0, whole: true });
    // Statements of their own, so that their snapshots are taken after the locks: a row that a batch
    // deleted before unlocking it is gone here.
    let read: Read[];
    try {
      // An event an older api wrote keeps its body in events until here; only such rows pay for the move
      // (in the read, its two updates made planning each claim a third dearer).
      const older = locked.filter((row) => row.older).map((row) => row.id);
      if (older.length) {
        await preparedQuery(
          runner,
          `WITH moved AS (
             UPDATE outbox o SET body = e.body FROM events e
             WHERE o.id = ANY ($1::bigint[]) AND o.body IS NULL AND e.id = o.data->>'eventId' AND e.body IS NOT NULL RETURNING e.id
           )
           UPDATE events SET body = NULL WHERE id IN (SELECT id FROM moved)`,
          [older],
        );
      }
      read = await preparedQuery<Read>(
        runner,
        READ,
        [ids],
      );
    } catch (error) {
      await this.release(ids);
      throw error;
    }
    const rows = withEndpoints(read);
    for (const row of rows) if (row.endpointId !== null) this.open.get(row.outboxId)!.left++;
    const found = new Set(rows.map((row) => row.outboxId));
    await this.release(ids.filter((id) => !found.has(id)));
    return { taken: ids.length, rows };
  }

  /** Deletes rows whose events nobody wants (their bodies go with them). */
  async drop(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    try {
      await this.db.query('DELETE FROM outbox WHERE id = ANY ($1::bigint[])', [ids]);
    } finally {
      await this.release(ids);
    }
  }

  /** A batch of deliveries, one per entry, begins to be logged: the rows it completes, to delete with them. */
  writing(outboxIds: readonly string[]): string[] {
    const inBatch = new Map<string, number>();
    for (const id of outboxIds) {
      const open = this.claimed(id);
      open.left--;
      open.writing++;
      inBatch.set(id, (inBatch.get(id) ?? 0) + 1);
    }
    return [...inBatch].filter(([id, count]) => {
      const open = this.claimed(id);
      return open.left === 0 && open.writing === count && open.whole;
    }).map(([id]) => id);
  }

  /** The batch begun with writing() ended, written or not: the rows with nothing left to log are let go. */
  async written(outboxIds: readonly string[], ok: boolean): Promise<void> {
    const done = new Set<string>();
    for (const id of outboxIds) {
      const open = this.claimed(id);
      open.writing--;
      if (!ok) open.whole = false;
      if (open.left === 0 && open.writing === 0) done.add(id);
    }
    await this.release([...done]);
  }

  /** After the fan-out's attempts ended; the rows of deliveries it did not make stay for the next claim. */
  async onApplicationShutdown(): Promise<void> {
    this.open.clear();
    const runner = this.runner;
    this.runner = undefined;
    if (!runner || runner.isReleased) return;
    // A connection goes back to the pool without the locks it held, and plans as the others do.
    await runner.query('SELECT pg_advisory_unlock_all(); RESET plan_cache_mode').then(() => runner.release(), () => undefined);
  }

  /** A row's bookkeeping; a blank one once the claims were let go at shutdown, for a batch that ended after it. */
  private claimed(id: string): Open {
    return this.open.get(id) ?? { left: 0, writing: 0, whole: false };
  }

  private async release(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    for (const id of ids) this.open.delete(id);
    // Locks of a connection that broke went with it, and an unlock fails only when it broke.
    if (!this.runner || this.runner.isReleased) return;
    await preparedQuery(this.runner, UNLOCK, [FAN_OUT_LOCK, ids]).catch(() => undefined);
  }

  /** The claims' connection; a new one once it broke (TypeORM releases a connection that errs, with its locks). */
  private async connection(): Promise<QueryRunner> {
    if (!this.runner || this.runner.isReleased) {
      this.runner = this.db.createQueryRunner();
      await this.runner.connect();
      // Each claim is planned for the tables as they are: a plan kept from when deliveries held a few
      // rows reads the whole table for every claimed row once it holds thousands (a burst outruns the
      // statistics that would replan it).
      await this.runner.query('SET plan_cache_mode = force_custom_plan');
    }
    return this.runner;
  }
}

/** The claimed rows, each with its endpoint's one object. */
function withEndpoints(read: Read[]): Claimed[] {
  const endpoints = new Map<string, Endpoint>();
  for (const row of read) {
    if (row.endpointId === null || row.url == null) continue;
    endpoints.set(row.endpointId, { url: row.url, secret: row.secret!, previousSecret: row.previousSecret ?? null, previousSecretUntil: row.previousSecretUntil ?? null, signatureFormat: row.signatureFormat! });
  }
  return read.map(({ outboxId, eventId, eventType, eventCreatedAt, body, endpointId }) => ({
    outboxId,
    eventId,
    eventType,
    eventCreatedAt,
    body,
    endpointId,
    endpoint: (endpointId !== null && endpoints.get(endpointId)) || null,
  }));
}
