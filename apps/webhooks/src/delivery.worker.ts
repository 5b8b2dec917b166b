import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  APP_CONFIG,
  AppConfig,
  Clock,
  closeWithin,
  Delivery,
  DeliveryAttempt,
  EventRecord,
  jobRunner,
  JobOf,
  QueueName,
  redisOptions,
  RetryLater,
  RetrySchedule,
  SecretBox,
  signingHeaders,
  WebhookEndpoint,
  webhookUrlProblem,
} from '@app/shared';
import { UnrecoverableError, Worker } from 'bullmq';
import { DataSource } from 'typeorm';
import { Agent, request } from 'undici';
import { safeAgent } from './safe-agent';

/** Deliveries in flight per process; each waits for its own endpoint, so a slow one holds back no other. */
const CONCURRENCY = 50;
const CLOSE_TIMEOUT_MS = 10_000;

/**
 * Delivers one event to one endpoint per job: a POST of the stored body signed in the endpoint's
 * format, a fresh signature per attempt, only a 2xx within WEBHOOK_TIMEOUT counts, retries on the
 * RetrySchedule, every attempt logged (and counted from that log). The worker is built here rather
 * than with @Processor because its backoff comes from the configuration.
 */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly jobs = jobRunner(QueueName.Deliveries, { deliver: (job) => this.deliver(job) });
  private readonly logger = new Logger(DeliveryWorker.name);
  private readonly secrets: SecretBox;
  private readonly agent: Agent;
  private worker: Worker | undefined;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly schedule: RetrySchedule,
  ) {
    this.secrets = new SecretBox(config.ENCRYPTION_KEY);
    this.agent = safeAgent(config.WEBHOOK_ALLOW_PRIVATE_URLS);
  }

  onApplicationBootstrap(): void {
    this.worker = new Worker(QueueName.Deliveries, this.jobs, {
      connection: { ...redisOptions(this.config.REDIS_URL), maxRetriesPerRequest: null },
      prefix: this.config.QUEUE_PREFIX,
      concurrency: CONCURRENCY,
      settings: { backoffStrategy: this.schedule.backoff },
    });
    this.worker.on('error', (error) => this.logger.warn(`Delivery worker: ${error.message}`));
  }

  async onApplicationShutdown(): Promise<void> {
    // Deliveries in flight last at most 5 s; the bound is for a close that never ends.
    if (this.worker) await closeWithin(this.worker, CLOSE_TIMEOUT_MS, 'the delivery worker').catch((error: Error) => this.logger.warn(error.message));
    await this.agent.close();
  }

  private async deliver(job: JobOf<QueueName.Deliveries, 'deliver'>): Promise<void> {
    const delivery = await this.db.getRepository(Delivery).findOneBy({ id: job.data.deliveryId });
    if (delivery?.status !== 'pending') return;
    const endpoint = await this.db.getRepository(WebhookEndpoint).findOneBy({ id: delivery.endpointId });
    const event = await this.db.getRepository(EventRecord).findOneBy({ id: delivery.eventId });
    if (!endpoint || !event?.body) {
      await this.finish(delivery, 'failed');
      throw new UnrecoverableError('The endpoint or the event body is gone');
    }
    const attempt = await this.nextAttempt(delivery.id);
    const started = this.clock.now();
    const outcome = await this.post(endpoint, delivery, event.body, started);
    await this.db.getRepository(DeliveryAttempt).insert({
      deliveryId: delivery.id,
      attempt,
      attemptedAt: started,
      statusCode: outcome.statusCode,
      error: outcome.error,
      durationMs: Date.now() - started.getTime(),
    });
    if (outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300) {
      await this.finish(delivery, 'succeeded');
      return;
    }
    const delay = this.schedule.delayAfter(attempt);
    if (delay === null) {
      await this.finish(delivery, 'failed');
      throw new UnrecoverableError(`Given up after ${attempt} attempts`);
    }
    await this.db.getRepository(Delivery).update({ id: delivery.id }, { nextAttemptAt: new Date(Date.now() + delay) });
    throw new RetryLater(outcome.error ?? `Answered ${outcome.statusCode}`, delay);
  }

  /** The number of this attempt, from the delivery's log: a job added again after Redis lost it goes on counting. */
  private async nextAttempt(deliveryId: string): Promise<number> {
    const [{ made }]: { made: number }[] = await this.db.query(
      `SELECT count(*)::int AS made FROM delivery_attempts WHERE delivery_id = $1`,
      [deliveryId],
    );
    return made + 1;
  }

  /** One attempt: the status code, or what went wrong (never the response body, never the secret). */
  private async post(endpoint: WebhookEndpoint, delivery: Delivery, body: string, now: Date) {
    const problem = webhookUrlProblem(endpoint.url, this.config.WEBHOOK_ALLOW_PRIVATE_URLS);
    if (problem) return { statusCode: null, error: `refused: the URL ${problem}` };
    const secrets = [this.secrets.open(endpoint.secret)];
    if (endpoint.previousSecret && endpoint.previousSecretUntil && endpoint.previousSecretUntil > now) {
      secrets.push(this.secrets.open(endpoint.previousSecret));
    }
    try {
      const response = await request(endpoint.url, {
        method: 'POST',
        body,
        dispatcher: this.agent,
        signal: AbortSignal.timeout(this.config.WEBHOOK_TIMEOUT),
        headers: {
          'content-type': 'application/json',
          'user-agent': 'waitlist-webhooks/1',
          ...signingHeaders(endpoint.signatureFormat, secrets, { eventId: delivery.eventId, body, unixSeconds: Math.floor(now.getTime() / 1000) }),
          'service-event': delivery.eventType,
          'service-delivery': delivery.id,
        },
      });
      // The answer's body does not matter; read at most a little of it and let the rest go.
      await response.body.dump({ limit: 4096 }).catch(() => undefined);
      return { statusCode: response.statusCode, error: null };
    } catch (error) {
      const { name, code, message } = error as { name?: string; code?: string; message?: string };
      const timedOut = name === 'TimeoutError' || name === 'AbortError';
      if (timedOut) return { statusCode: null, error: `no answer within ${this.config.WEBHOOK_TIMEOUT} ms` };
      return { statusCode: null, error: code === 'EPRIVATE' ? (message ?? code) : (code ?? message ?? 'error') };
    }
  }

  /** Ends a delivery; once every delivery of its event has ended, the event's body is deleted. */
  private async finish(delivery: Delivery, status: 'succeeded' | 'failed'): Promise<void> {
    await this.db.transaction(async (manager) => {
      // Deliveries of one event finish one at a time, so the last one always sees the others ended.
      await manager.query('SELECT 1 FROM events WHERE id = $1 FOR UPDATE', [delivery.eventId]);
      await manager.update(Delivery, { id: delivery.id }, { status, finishedAt: this.clock.now(), nextAttemptAt: null });
      await manager.query(
        `UPDATE events SET body = NULL WHERE id = $1
         AND NOT EXISTS (SELECT 1 FROM deliveries WHERE event_id = $1 AND status = 'pending')`,
        [delivery.eventId],
      );
    });
  }
}
