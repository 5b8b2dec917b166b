import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { APP_CONFIG, AppConfig, Clock, CommandQueue, JobData, newId, QueueName, RetrySchedule, Rounds, withTimeout } from '@app/shared';
import { DataSource } from 'typeorm';

/** Events fanned out per transaction. */
const BATCH = 500;
const IDLE_MS = 100;
const ADD_TIMEOUT_MS = 3000;

interface Claimed {
  id: string;
  data: JobData<QueueName.Webhooks, 'fan-out'>;
}

/**
 * Turns committed events into one delivery per endpoint that wants them (same product and mode, type
 * chosen, not disabled; a test event goes to its one endpoint whatever it chose), straight from their
 * outbox rows, a batch at a time: the rows are claimed with SKIP LOCKED (any number of webhooks
 * processes may run), the deliveries made, their jobs added, and only then the rows deleted. So a
 * fan-out needs no job of its own and no lease: if the process dies or Redis is away, the claim ends
 * and the rows wait for the next round, which finds the deliveries made and adds their jobs (a job's
 * id is its delivery's, so none runs twice). An event nobody wants has its body deleted at once.
 */
@Injectable()
export class FanOut implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(FanOut.name);
  private readonly rounds = new Rounds(this.logger);
  /** Fails fast while Redis is away, so the batch rolls back and waits instead of hanging. */
  private readonly deliveries: CommandQueue;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly schedule: RetrySchedule,
    private readonly clock: Clock,
  ) {
    this.deliveries = CommandQueue.open(QueueName.Deliveries, config);
  }

  onApplicationBootstrap(): void {
    this.rounds.start('Fan-out', () => this.fanOutOnce(), (count) => (count === BATCH ? 0 : IDLE_MS));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.rounds.stop();
    await this.deliveries.close();
  }

  /**
   * Fans out one batch of events; returns how many outbox rows it took. The claim (the rows' locks) is
   * held until the jobs are added, while the deliveries are committed before that on a connection of
   * their own: a job never looks for a delivery it cannot see yet.
   */
  private async fanOutOnce(): Promise<number> {
    return this.db.transaction(async (claim) => {
      const rows: Claimed[] = await claim.query(
        `SELECT id, data FROM outbox WHERE queue = $1 AND published_at IS NULL ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED`,
        [QueueName.Webhooks, BATCH],
      );
      if (rows.length === 0) return 0;
      const deliveryIds = await this.makeDeliveries(rows.map((row) => row.data));
      const jobs = deliveryIds.map((id) => this.schedule.job(id));
      if (jobs.length) await withTimeout(this.deliveries.addBulk(jobs), ADD_TIMEOUT_MS, `adding ${jobs.length} delivery jobs`);
      await claim.query(`DELETE FROM outbox WHERE id = ANY ($1::bigint[])`, [rows.map((row) => row.id)]);
      return rows.length;
    });
  }

  /**
   * Makes the deliveries of these events and returns every pending one of them, including those an
   * earlier round made before it stopped short of adding their jobs; deletes the bodies nobody wants.
   */
  private async makeDeliveries(fanOuts: Claimed['data'][]): Promise<string[]> {
    const eventIds = fanOuts.map((fanOut) => fanOut.eventId);
    const wanted: { eventId: string; eventType: string; endpointId: string }[] = await this.db.query(
      `SELECT e.id AS "eventId", e.type AS "eventType", w.id AS "endpointId"
       FROM unnest($1::text[], $2::text[]) AS c (event_id, endpoint_id)
       JOIN events e ON e.id = c.event_id AND e.body IS NOT NULL
       JOIN webhook_endpoints w ON w.product_id = e.product_id AND w.mode = e.mode
       WHERE CASE WHEN c.endpoint_id IS NULL THEN w.disabled_at IS NULL AND e.type = ANY (w.events) ELSE w.id = c.endpoint_id END`,
      [eventIds, fanOuts.map((fanOut) => fanOut.endpointId ?? null)],
    );
    const delivered = new Set(wanted.map((pair) => pair.eventId));
    const unwanted = eventIds.filter((eventId) => !delivered.has(eventId));
    if (unwanted.length) await this.db.query(`UPDATE events SET body = NULL WHERE id = ANY ($1::text[])`, [unwanted]);
    if (wanted.length === 0) return [];
    // The statement's second part sees only deliveries made before it: each id comes once.
    const pending: { id: string }[] = await this.db.query(
      `WITH made AS (
         INSERT INTO deliveries (id, endpoint_id, event_id, event_type, status, created_at)
         SELECT id, endpoint_id, event_id, event_type, 'pending', $5 FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS d (id, endpoint_id, event_id, event_type)
         ON CONFLICT (endpoint_id, event_id) DO NOTHING RETURNING id
       )
       SELECT id FROM made UNION ALL SELECT id FROM deliveries WHERE event_id = ANY ($3::text[]) AND status = 'pending'`,
      [wanted.map(() => newId('dlv')), wanted.map((pair) => pair.endpointId), wanted.map((pair) => pair.eventId), wanted.map((pair) => pair.eventType), this.clock.now()],
    );
    return pending.map((delivery) => delivery.id);
  }
}
