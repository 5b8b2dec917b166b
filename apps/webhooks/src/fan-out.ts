import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { APP_CONFIG, AppConfig, Clock, CommandQueue, newId, Outages, QueueName, RetrySchedule, Rounds, withTimeout } from '@app/shared';
import { DataSource } from 'typeorm';
import { Attempts, Due } from './attempts';

/** First attempts' POSTs in flight per process (the delivery worker has as many for retries). */
const SLOTS = 50;
/** Deliveries claimed beyond the free slots per process, waiting for one. */
const QUEUED = 2 * SLOTS;
/** Deliveries claimed and not yet logged per process: queued for a slot, posting, or being logged. */
const HELD = 8 * SLOTS;
const IDLE_MS = 100;
const ADD_TIMEOUT_MS = 3000;
const CLOSE_TIMEOUT_MS = 10_000;

/** A claimed event, with an endpoint that wants it and what the first attempt needs, or none. */
interface Wanted extends Omit<Due, 'id' | 'made' | 'alone'> {
  endpointId: string | null;
}

/**
 * Turns committed events into one delivery per endpoint that wants them (same product and mode, type
 * chosen, not disabled; a test event goes to its one endpoint whatever it chose) and makes each
 * delivery's first attempt at once, in this process; BullMQ carries only the retries. Events are
 * claimed from their outbox rows (SKIP LOCKED: any number of webhooks processes may run), only as many
 * as there are free attempt slots, so nothing waits long in memory; one transaction deletes the rows
 * and makes the deliveries. A delivery whose first attempt fails gets a delayed job; one whose attempt
 * never ended (the process died, or its log could not be written) is pending without a job, and the
 * DeliveryReconciler gives it one. An event nobody wants has its body deleted at once.
 */
@Injectable()
export class FanOut implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger(FanOut.name);
  private readonly rounds: Rounds;
  /** Fails fast while Redis is away: the retry is then the reconciler's. */
  private readonly retries: CommandQueue;
  /** First attempts under way, from their POST until they are logged. */
  private readonly held = new Set<Promise<void>>();
  private posting = 0;
  /** Deliveries claimed, in order, waiting for a slot. */
  private readonly queued: Due[] = [];
  private roomMade: (() => void) | undefined;
  private closing = false;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly schedule: RetrySchedule,
    private readonly clock: Clock,
    private readonly attempts: Attempts,
    outages: Outages,
  ) {
    this.rounds = new Rounds(this.logger, outages);
    this.retries = CommandQueue.open(QueueName.Deliveries, config);
  }

  onApplicationBootstrap(): void {
    this.closing = false;
    this.rounds.start('Fan-out', () => this.fanOutOnce(), (more) => (more ? 0 : IDLE_MS));
  }

  /** Claims nothing more and lets the attempts under way end; the queued ones are the reconciler's. */
  async beforeApplicationShutdown(): Promise<void> {
    this.closing = true;
    this.roomMade?.();
    this.queued.length = 0;
    await this.rounds.stop();
    await withTimeout(Promise.allSettled(this.held), CLOSE_TIMEOUT_MS, 'Ending the first attempts').catch((error: Error) => this.logger.warn(error.message));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.retries.close();
  }

  /**
   * How many more events to claim: two slots' worth may wait queued, so that the slots never wait for a
   * claim (a claim takes longer than a quick endpoint's answer), while a queued delivery waits for at
   * most two attempts in its slot; and logging that lags holds back the claims.
   */
  private get room(): number {
    return Math.min(QUEUED + SLOTS - this.posting - this.queued.length, HELD - this.held.size - this.queued.length);
  }

  /** Waits for room, then fans out as many events as there is room for; whether more may wait. */
  private async fanOutOnce(): Promise<boolean> {
    while (this.room <= 0 && !this.closing) await new Promise<void>((resolve) => (this.roomMade = resolve));
    if (this.closing) return false;
    const limit = this.room;
    const { claimed, dues } = await this.claim(limit);
    dues.forEach((due) => this.start(due));
    return claimed === limit;
  }

  /**
   * In one transaction: takes up to `limit` outbox rows, makes the deliveries of their events, and
   * deletes the bodies nobody wants. Returns how many rows it took and the deliveries it made.
   */
  private async claim(limit: number): Promise<{ claimed: number; dues: Due[] }> {
    return this.db.transaction(async (manager) => {
      const rows: Wanted[] = await manager.query(
        `WITH claimed AS (
           DELETE FROM outbox WHERE id IN (
             SELECT id FROM outbox WHERE queue = $1 AND published_at IS NULL ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED
           ) RETURNING data->>'eventId' AS event_id, data->>'endpointId' AS endpoint_id
         )
         SELECT c.event_id AS "eventId", e.type AS "eventType", e.created_at AS "eventCreatedAt", e.body, w.id AS "endpointId", w.url, w.secret,
           w.previous_secret AS "previousSecret", w.previous_secret_until AS "previousSecretUntil", w.signature_format AS "signatureFormat"
         FROM claimed c
         LEFT JOIN events e ON e.id = c.event_id AND e.body IS NOT NULL
         LEFT JOIN webhook_endpoints w ON w.product_id = e.product_id AND w.mode = e.mode
           AND CASE WHEN c.endpoint_id IS NULL THEN w.disabled_at IS NULL AND e.type = ANY (w.events) ELSE w.id = c.endpoint_id END`,
        [QueueName.Webhooks, limit],
      );
      const claimed = new Set(rows.map((row) => row.eventId)).size;
      const wanted = new Map(rows.filter((row) => row.endpointId !== null).map((row) => [newId('dlv'), row]));
      const delivered = new Set([...wanted.values()].map((row) => row.eventId));
      const unwanted = [...new Set(rows.map((row) => row.eventId))].filter((eventId) => !delivered.has(eventId));
      if (wanted.size === 0 && unwanted.length === 0) return { claimed, dues: [] };
      const pairs = [...wanted.entries()];
      // A delivery an older version made for the same row stays with the job that version gave it.
      const made: { id: string; first: boolean }[] = await manager.query(
        `WITH unwanted AS (UPDATE events SET body = NULL WHERE id = ANY ($6::text[]))
         INSERT INTO deliveries (id, endpoint_id, event_id, event_type, status, created_at)
         SELECT id, endpoint_id, event_id, event_type, 'pending', $5 FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS d (id, endpoint_id, event_id, event_type)
         ON CONFLICT (endpoint_id, event_id) DO NOTHING
         RETURNING id, NOT EXISTS (SELECT 1 FROM deliveries s WHERE s.event_id = deliveries.event_id AND s.status = 'pending') AS first`,
        [pairs.map(([id]) => id), pairs.map(([, row]) => row.endpointId), pairs.map(([, row]) => row.eventId), pairs.map(([, row]) => row.eventType), this.clock.now(), unwanted],
      );
      const endpoints = new Map<string, number>();
      for (const row of wanted.values()) endpoints.set(row.eventId, (endpoints.get(row.eventId) ?? 0) + 1);
      // `first`: no delivery an older version made for the event is still pending.
      const dues = made.map(({ id, first }): Due => {
        const { endpointId: _, ...row } = wanted.get(id)!;
        return { id, ...row, made: 0, alone: first && endpoints.get(row.eventId) === 1 };
      });
      return { claimed, dues };
    });
  }

  /** Makes a delivery's first attempt in a free slot, or queues it for the next one. */
  private start(due: Due): void {
    if (this.posting >= SLOTS) {
      this.queued.push(due);
      return;
    }
    this.posting++;
    const work = this.attemptFirst(due).finally(() => {
      this.held.delete(work);
      this.roomMade?.();
    });
    this.held.add(work);
  }

  /** The slot is free again once the POST ended; the log follows in a batch. */
  private async attemptFirst(due: Due): Promise<void> {
    try {
      const attempted = await this.attempts.attempt(due).finally(() => {
        this.posting--;
        const next = this.queued.shift();
        if (next) this.start(next);
        this.roomMade?.();
      });
      const made = await this.attempts.log(attempted);
      if (made.status !== 'pending') return;
      const { name, data, opts } = this.schedule.job(due.id, made.delayMs);
      await withTimeout(this.retries.add(name, data, opts), ADD_TIMEOUT_MS, 'adding a delivery job');
    } catch (error) {
      this.logger.warn(`Delivery ${due.id} is left to the reconciler: ${(error as Error).message}`);
    }
  }
}
