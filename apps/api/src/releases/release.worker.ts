import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { APP_CONFIG, AppConfig, closeWithin, endQueueConnection, INVITATION_WAIT_MS, JobOf, jobRunner, Outages, queueConnection, queuePrefix, QueueName } from '@app/shared';
import { Worker } from 'bullmq';
import { ReleaseRunner } from './release-runner';
import { ReleaseSchedulers } from './release-schedulers';

/** Releases of different products run side by side; each one mostly waits for the mailer. */
const CONCURRENCY = 4;
/**
 * A run in flight waits at most this long for its chunk of mails; a run cut off here gives its lock
 * back with the process, and another api takes it over (ReleaseRunner.takeOver).
 */
const CLOSE_TIMEOUT_MS = INVITATION_WAIT_MS + 5_000;

/**
 * The api's worker of the releases queue. The api runs releases because a release is invite-next,
 * which holds the entries and waits for the mailer here (apps/mailer only hands mails over). At start
 * it reconciles the schedulers with PostgreSQL, as each maintenance round does.
 */
@Injectable()
export class ReleaseWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(ReleaseWorker.name);
  private readonly jobs = jobRunner(QueueName.Releases, { release: (job) => this.release(job) });
  private worker?: Worker;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly runner: ReleaseRunner,
    private readonly schedulers: ReleaseSchedulers,
    private readonly outages: Outages,
  ) {}

  onApplicationBootstrap(): void {
    this.worker = new Worker(QueueName.Releases, this.jobs, {
      connection: queueConnection(this.config),
      prefix: queuePrefix(this.config),
      concurrency: CONCURRENCY,
    });
    this.worker.on('error', (error) => void this.outages.explain().then((outage) => outage || this.logger.warn(`Worker: ${error.message}`)));
    void this.schedulers.reconcile().catch((error: Error) => this.logger.warn(`Reconciling the release schedulers failed: ${error.message}`));
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (!this.worker) return;
    await closeWithin(this.worker, CLOSE_TIMEOUT_MS, 'the release worker').catch((error: Error) => this.logger.warn(error.message));
    endQueueConnection(this.worker.opts.connection);
  }

  private async release(job: JobOf<QueueName.Releases, 'release'>): Promise<void> {
    const tick = job.data.tick ?? job.opts.prevMillis;
    if (tick === undefined) return;
    await this.runner.runTick(job.data.releaseId, new Date(tick));
  }
}
