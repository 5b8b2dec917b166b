import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { APP_CONFIG, AppConfig, closeWithin, endQueueConnection, jobRunner, JobOf, Outages, queueConnection, QueueName, queuePrefix, RetryLater, RetrySchedule } from '@app/shared';
import { UnrecoverableError, Worker } from 'bullmq';
import { Attempts } from './attempts';

/** Retries in flight per process; each waits for its own endpoint, so a slow one holds back no other. */
const CONCURRENCY = 50;
const CLOSE_TIMEOUT_MS = 10_000;

/**
 * Makes the attempts after the first (which the fan-out makes): one job per delivery, added delayed
 * when an attempt failed, retried on the RetrySchedule, each attempt logged before its job ends. A job
 * is also how the reconciler and "retry now" hand a delivery back. The worker is built here rather
 * than with @Processor because its backoff comes from the configuration.
 */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly jobs = jobRunner(QueueName.Deliveries, { deliver: (job) => this.deliver(job) });
  private readonly logger = new Logger(DeliveryWorker.name);
  private worker: Worker | undefined;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly schedule: RetrySchedule,
    private readonly attempts: Attempts,
    private readonly outages: Outages,
  ) {}

  onApplicationBootstrap(): void {
    this.worker = new Worker(QueueName.Deliveries, this.jobs, {
      connection: queueConnection(this.config),
      prefix: queuePrefix(this.config),
      concurrency: CONCURRENCY,
      settings: { backoffStrategy: this.schedule.backoff },
    });
    this.worker.on('error', (error) => void this.outages.explain().then((outage) => outage || this.logger.warn(`Delivery worker: ${error.message}`)));
  }

  async beforeApplicationShutdown(): Promise<void> {
    // Deliveries in flight last at most WEBHOOK_TIMEOUT; the bound is for a close that never ends.
    if (!this.worker) return;
    await closeWithin(this.worker, CLOSE_TIMEOUT_MS, 'the delivery worker').catch((error: Error) => this.logger.warn(error.message));
    endQueueConnection(this.worker.opts.connection);
  }

  private async deliver(job: JobOf<QueueName.Deliveries, 'deliver'>): Promise<void> {
    const due = await this.attempts.load(job.data.deliveryId);
    if (!due) return;
    const made = await this.attempts.make(due);
    if (made.status === 'failed') throw new UnrecoverableError(made.reason);
    if (made.status === 'pending') throw new RetryLater(made.reason, made.delayMs);
  }
}
