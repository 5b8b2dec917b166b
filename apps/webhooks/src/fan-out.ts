import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { APP_CONFIG, AppConfig, Clock, CommandQueue, deliveryId, groupCommits, Outages, preparedQuery, QueueName, RetrySchedule, Rounds, withTimeout } from '@app/shared';
import { DataSource } from 'typeorm';
import { Attempted, Attempts, Due, Endpoint } from './attempts';
import { Claimed, Claims } from './claims';

/** First attempts' POSTs in flight per process (the delivery worker has as many for retries). */
const SLOTS = 50;
/** Deliveries claimed beyond the free slots per process, waiting for one. */
const QUEUED = 2 * SLOTS;
/** Deliveries claimed and not yet logged per process: queued for a slot, posting, or being logged. */
const HELD = 8 * SLOTS;
const IDLE_MS = 100;
const ADD_TIMEOUT_MS = 3000;
const CLOSE_TIMEOUT_MS = 10_000;

/** A delivery's first attempt, with the outbox row it comes from. */
interface First extends Due {
  outboxId: string;
  endpointId: string;
}

/**
 * Turns committed events into one delivery per endpoint that wants them (same product and mode, type
 * chosen, not disabled; a test event goes to its one endpoint whatever it chose) and makes each
 * delivery's first attempt at once, in this process; BullMQ carries only the retries. Events are
 * claimed from their outbox rows (Claims: any number of webhooks processes may run), only as many as
 * there are free attempt slots, so nothing waits long in memory. A delivery's row is written once,
 * after its first attempt, with that attempt inline: one statement per batch writes the rows and
 * deletes the outbox rows they complete, and with them the bodies (a delivery left waiting for a retry
 * keeps its event's body in events). A process that dies between its POSTs and their batch's commit
 * has logged none of them: another claims the rows and makes those deliveries again, with the same
 * event and delivery ids. A delivery whose first attempt fails gets a delayed job; the DeliveryReconciler adds again a
 * job Redis lost. An event nobody wants has its outbox row, and its body, deleted at once.
 */
@Injectable()
export class FanOut implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger(FanOut.name);
  private readonly rounds: Rounds;
  /** Fails fast while Redis is away: the retry is then the reconciler's. */
  private readonly retries: CommandQueue;
  /** First attempts logged in batches: whether each delivery's row was written by this batch. */
  private readonly logged = groupCommits<Attempted, boolean>((batch) => this.write(batch));
  /** First attempts under way, from their POST until they are logged. */
  private readonly held = new Set<Promise<void>>();
  private posting = 0;
  /** Deliveries claimed, in order, waiting for a slot. */
  private readonly queued: First[] = [];
  private roomMade: (() => void) | undefined;
  private closing = false;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly schedule: RetrySchedule,
    private readonly clock: Clock,
    private readonly attempts: Attempts,
    private readonly claims: Claims,
    outages: Outages,
  ) {
    this.rounds = new Rounds(this.logger, outages);
    this.retries = CommandQueue.open(QueueName.Deliveries, config);
  }

  onApplicationBootstrap(): void {
    this.closing = false;
    this.rounds.start('Fan-out', () => this.fanOutOnce(), (more) => (more ? 0 : IDLE_MS));
  }

  /** Claims nothing more and lets the attempts under way end; the queued ones stay in the outbox. */
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
    const { taken, rows } = await this.claims.take(limit);
    await this.claims.drop([...new Set(rows.filter((row) => row.endpointId === null).map((row) => row.outboxId))]);
    for (const row of rows) if (row.endpointId !== null && row.endpoint !== null) this.start(first(row, row.endpointId, row.endpoint));
    return taken === limit;
  }

  /** Makes a delivery's first attempt in a free slot, or queues it for the next one. */
  private start(due: First): void {
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
  private async attemptFirst(due: First): Promise<void> {
    try {
      const attempted = await this.attempts.attempt(due).finally(() => {
        this.posting--;
        const next = this.queued.shift();
        if (next) this.start(next);
        this.roomMade?.();
      });
      // A row another process wrote first is that process's: its attempt is the one logged, its retry too.
      if (!(await this.logged(attempted))) return;
      this.attempts.observe(attempted);
      if (attempted.made.status !== 'pending') return;
      const { name, data, opts } = this.schedule.job(due.id, attempted.made.delayMs);
      await withTimeout(this.retries.add(name, data, opts), ADD_TIMEOUT_MS, 'adding a delivery job');
    } catch (error) {
      this.logger.warn(`Delivery ${due.id}: ${(error as Error).message}`);
    }
  }

  /**
   * Writes a batch of first attempts, each delivery's row with its attempt inline, and deletes the
   * outbox rows whose deliveries are all logged with it; a delivery left waiting for a retry keeps its
   * event's body in events. A batch that fails leaves its outbox rows to the next claim.
   */
  private async write(batch: readonly Attempted[]): Promise<boolean[]> {
    const firsts = batch.map((attempted) => ({ ...attempted, due: attempted.due as First, attempt: attempted.attempt! }));
    const outboxIds = firsts.map(({ due }) => due.outboxId);
    const covered = this.claims.writing(outboxIds);
    const kept = new Map(firsts.filter(({ made }) => made.status === 'pending').map(({ due }) => [due.eventId, due.body]));
    let ok = false;
    try {
      const rows = await preparedQuery<{ id: string }>(
        this.db,
        `WITH done AS (DELETE FROM outbox WHERE id = ANY ($1::bigint[])),
         kept AS (UPDATE events e SET body = k.body FROM unnest($2::text[], $3::text[]) AS k (id, body) WHERE e.id = k.id)
         INSERT INTO deliveries (id, endpoint_id, event_id, event_type, status, created_at, next_attempt_at, finished_at, attempted_at, status_code, error, duration_ms)
         SELECT v.id, v.endpoint_id, v.event_id, v.event_type, v.status, v.attempted_at, v.next_attempt_at,
           CASE WHEN v.status = 'pending' THEN NULL ELSE $14::timestamptz END, v.attempted_at, v.status_code, v.error, v.duration_ms
         FROM unnest($4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::timestamptz[], $10::timestamptz[], $11::int[], $12::text[], $13::int[])
           AS v (id, endpoint_id, event_id, event_type, status, next_attempt_at, attempted_at, status_code, error, duration_ms)
         -- An endpoint deleted since the claim took its deliveries with it.
         WHERE EXISTS (SELECT 1 FROM webhook_endpoints w WHERE w.id = v.endpoint_id)
         ON CONFLICT (endpoint_id, event_id) DO NOTHING
         RETURNING id`,
        [
          covered,
          [...kept.keys()],
          [...kept.values()],
          firsts.map(({ due }) => due.id),
          firsts.map(({ due }) => due.endpointId),
          firsts.map(({ due }) => due.eventId),
          firsts.map(({ due }) => due.eventType),
          firsts.map(({ made }) => made.status),
          firsts.map(({ nextAttemptAt }) => nextAttemptAt),
          firsts.map(({ attempt }) => attempt.attemptedAt),
          firsts.map(({ attempt }) => attempt.statusCode),
          firsts.map(({ attempt }) => attempt.error),
          firsts.map(({ attempt }) => attempt.durationMs),
          this.clock.now(),
        ],
      );
      ok = true;
      const inserted = new Set(rows.map((row) => row.id));
      return firsts.map(({ due }) => inserted.has(due.id));
    } finally {
      await this.claims.written(outboxIds, ok);
    }
  }
}

/** A claimed delivery's first attempt. */
function first({ outboxId, eventId, eventType, eventCreatedAt, body }: Claimed, endpointId: string, endpoint: Endpoint): First {
  return { id: deliveryId(endpointId, eventId), outboxId, eventId, eventType, eventCreatedAt, body, endpointId, endpoint, made: 0 };
}
