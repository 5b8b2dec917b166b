import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { APP_CONFIG, AppConfig, Outages, QueueName, restoreJobs, RetrySchedule, Rounds, withTimeout } from '@app/shared';
import { Queue } from 'bullmq';
import { DataSource } from 'typeorm';

/** Deliveries checked against Redis per round. */
const BATCH = 500;
const CHECK_TIMEOUT_MS = 5000;

/**
 * PostgreSQL knows every delivery still to make; Redis only carries the jobs of their retries. Every
 * RECONCILE_INTERVAL this adds again the job of each pending delivery that is overdue by more than
 * that interval and whose job Redis no longer has (it restarted without its data, or the job could not
 * be added), so the delivery is attempted again, with the same event and delivery ids, within about two
 * intervals of being due. A first attempt needs no job: its outbox row carries it until it is logged
 * (FanOut). A pending delivery with no attempt at all is one an older version made before attempting
 * it, and is handed to the worker once it is older than three WEBHOOK_TIMEOUTs and an interval.
 */
@Injectable()
export class DeliveryReconciler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(DeliveryReconciler.name);
  private readonly rounds: Rounds;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @InjectQueue(QueueName.Deliveries) private readonly deliveries: Queue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly schedule: RetrySchedule,
    outages: Outages,
  ) {
    this.rounds = new Rounds(this.logger, outages);
  }

  onApplicationBootstrap(): void {
    const every = this.config.RECONCILE_INTERVAL;
    this.rounds.start('Delivery reconciler', () => this.reconcileOnce(), () => every, every);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.rounds.stop();
  }

  /** Adds again the jobs Redis lost of overdue deliveries; returns how many. */
  private async reconcileOnce(): Promise<number> {
    const due: { id: string }[] = await this.db.query(
      `SELECT id FROM deliveries
       WHERE status = 'pending' AND COALESCE(next_attempt_at, created_at) < now() - $1::int * interval '1 millisecond'
         AND (next_attempt_at IS NOT NULL OR created_at < now() - ($1::int + 3 * $3::int) * interval '1 millisecond')
       ORDER BY COALESCE(next_attempt_at, created_at) LIMIT $2`,
      [this.config.RECONCILE_INTERVAL, BATCH, this.config.WEBHOOK_TIMEOUT],
    );
    if (due.length === 0) return 0;
    const jobs = due.map((delivery) => this.schedule.job(delivery.id));
    const restored = await withTimeout(restoreJobs(this.deliveries, jobs), CHECK_TIMEOUT_MS, `checking ${due.length} delivery jobs`);
    if (restored > 0) this.logger.warn(`Added ${restored} delivery jobs again that Redis had lost`);
    return restored;
  }
}
