import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  APP_CONFIG,
  AppConfig,
  Clock,
  closeWithin,
  DeliveryAttempt,
  DeliveryStatus,
  jobRunner,
  JobOf,
  QueueName,
  redisOptions,
  RetryLater,
  RetrySchedule,
  SecretBox,
  SignatureFormat,
  signingHeaders,
  webhookUrlProblem,
} from '@app/shared';
import { UnrecoverableError, Worker } from 'bullmq';
import DataLoader from 'dataloader';
import { DataSource } from 'typeorm';
import { Agent, request } from 'undici';
import { safeAgent } from './safe-agent';

/** Deliveries in flight per process; each waits for its own endpoint, so a slow one holds back no other. */
const CONCURRENCY = 50;
const CLOSE_TIMEOUT_MS = 10_000;
const MAX_BATCH = 200;

/** A pending delivery with what its next attempt needs. */
interface Due {
  id: string;
  eventId: string;
  eventType: string;
  /** Null only if it was deleted under a pending delivery. */
  body: string | null;
  url: string;
  secret: Buffer;
  previousSecret: Buffer | null;
  previousSecretUntil: Date | null;
  signatureFormat: SignatureFormat;
  /** Attempts its log holds. */
  made: number;
}

/** An attempt to log, if one was made, and where it leaves its delivery: ended, or pending until nextAttemptAt. */
interface Outcome {
  due: Due;
  attempt: DeliveryAttempt | null;
  status: DeliveryStatus;
  nextAttemptAt: Date | null;
}

/**
 * Deliveries are loaded, and their attempts logged, in batches of what the jobs in flight ask for: one
 * query (or transaction) per batch instead of several per delivery. A batch goes as soon as the one
 * before it has ended (a group commit): nothing waits while the database is idle, and under load each
 * batch takes whatever came in meanwhile.
 */
function batches<K, V>(work: (keys: readonly K[]) => Promise<V[]>): DataLoader<K, V> {
  let running: Promise<unknown> = Promise.resolve();
  const run = (keys: readonly K[]) => {
    const batch = work(keys);
    running = batch.catch(() => undefined);
    return batch;
  };
  return new DataLoader(run, { cache: false, maxBatchSize: MAX_BATCH, batchScheduleFn: (dispatch) => void running.then(() => setImmediate(dispatch)) });
}

/**
 * Delivers one event to one endpoint per job: a POST of the stored body signed in the endpoint's
 * format, a fresh signature per attempt, only a 2xx within WEBHOOK_TIMEOUT counts, retries on the
 * RetrySchedule, every attempt logged (and counted from that log) before its job ends. The worker is
 * built here rather than with @Processor because its backoff comes from the configuration.
 */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly jobs = jobRunner(QueueName.Deliveries, { deliver: (job) => this.deliver(job) });
  private readonly logger = new Logger(DeliveryWorker.name);
  private readonly secrets: SecretBox;
  private readonly agent: Agent;
  private worker: Worker | undefined;
  private readonly due = batches<string, Due | null>((ids) => this.loadDue(ids));
  private readonly log = batches<Outcome, void>((outcomes) => this.record(outcomes));

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
    const due = await this.due.load(job.data.deliveryId);
    if (!due) return;
    if (due.body === null) {
      await this.log.load({ due, attempt: null, status: 'failed', nextAttemptAt: null });
      throw new UnrecoverableError('The event body is gone');
    }
    const attempt = due.made + 1;
    const started = this.clock.now();
    const outcome = await this.post(due, due.body, started);
    const logged = { deliveryId: due.id, attempt, attemptedAt: started, ...outcome, durationMs: Date.now() - started.getTime() };
    const delivered = outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300;
    const delay = delivered ? null : this.schedule.delayAfter(attempt);
    const status = delivered ? 'succeeded' : delay === null ? 'failed' : 'pending';
    await this.log.load({ due, attempt: logged, status, nextAttemptAt: delay === null ? null : new Date(Date.now() + delay) });
    if (status === 'failed') throw new UnrecoverableError(`Given up after ${attempt} attempts`);
    if (delay !== null) throw new RetryLater(outcome.error ?? `Answered ${outcome.statusCode}`, delay);
  }

  /** The pending ones of these deliveries, each with its body, its endpoint and the attempts its log counts (so a job added again after Redis lost it goes on counting). */
  private async loadDue(ids: readonly string[]): Promise<(Due | null)[]> {
    const rows: Due[] = await this.db.query(
      `SELECT d.id, d.event_id AS "eventId", d.event_type AS "eventType", e.body, w.url, w.secret, w.previous_secret AS "previousSecret",
         w.previous_secret_until AS "previousSecretUntil", w.signature_format AS "signatureFormat",
         (SELECT count(*)::int FROM delivery_attempts a WHERE a.delivery_id = d.id) AS made
       FROM deliveries d JOIN events e ON e.id = d.event_id JOIN webhook_endpoints w ON w.id = d.endpoint_id
       WHERE d.id = ANY ($1::text[]) AND d.status = 'pending'`,
      [ids],
    );
    const byId = new Map(rows.map((row) => [row.id, row]));
    return ids.map((id) => byId.get(id) ?? null);
  }

  /**
   * Logs a batch of attempts and moves their deliveries on: ended (succeeded or given up), or waiting
   * for the next attempt. An event's body is deleted once every delivery of it has ended.
   */
  private async record(outcomes: readonly Outcome[]): Promise<void[]> {
    const attempts = outcomes.flatMap((outcome) => (outcome.attempt ? [outcome.attempt] : []));
    const ending = [...new Set(outcomes.filter((outcome) => outcome.status !== 'pending').map((outcome) => outcome.due.eventId))].sort();
    await this.db.transaction(async (manager) => {
      // Deliveries of one event end one at a time (their events locked, in one order so that batches never
      // deadlock), and the body's deletion below comes after the lock: the last one sees the others ended.
      await manager.query(
        `WITH locked AS (SELECT id FROM events WHERE id = ANY ($1::text[]) ORDER BY id FOR UPDATE),
         logged AS (
           INSERT INTO delivery_attempts (delivery_id, attempt, attempted_at, status_code, error, duration_ms)
           SELECT a.* FROM unnest($2::text[], $3::int[], $4::timestamptz[], $5::int[], $6::text[], $7::int[])
             AS a (delivery_id, attempt, attempted_at, status_code, error, duration_ms)
           -- A delivery whose endpoint was deleted meanwhile went with it, and must not fail the batch.
           JOIN deliveries d ON d.id = a.delivery_id
         ),
         moved AS (
           UPDATE deliveries d SET status = v.status, next_attempt_at = v.next_attempt_at,
             finished_at = CASE WHEN v.status = 'pending' THEN NULL ELSE $11::timestamptz END
           FROM unnest($8::text[], $9::text[], $10::timestamptz[]) AS v (id, status, next_attempt_at) WHERE d.id = v.id
         )
         SELECT count(*) FROM locked`,
        [
          ending,
          attempts.map((row) => row.deliveryId),
          attempts.map((row) => row.attempt),
          attempts.map((row) => row.attemptedAt),
          attempts.map((row) => row.statusCode),
          attempts.map((row) => row.error),
          attempts.map((row) => row.durationMs),
          outcomes.map((outcome) => outcome.due.id),
          outcomes.map((outcome) => outcome.status),
          outcomes.map((outcome) => outcome.nextAttemptAt),
          this.clock.now(),
        ],
      );
      if (ending.length) {
        await manager.query(
          `UPDATE events SET body = NULL WHERE id = ANY ($1::text[])
           AND NOT EXISTS (SELECT 1 FROM deliveries WHERE event_id = events.id AND status = 'pending')`,
          [ending],
        );
      }
    });
    return outcomes.map(() => undefined);
  }

  /** One attempt: the status code, or what went wrong (never the response body, never the secret). */
  private async post(due: Due, body: string, now: Date): Promise<{ statusCode: number | null; error: string | null }> {
    const problem = webhookUrlProblem(due.url, this.config.WEBHOOK_ALLOW_PRIVATE_URLS);
    if (problem) return { statusCode: null, error: `refused: the URL ${problem}` };
    const secrets = [this.secrets.open(due.secret)];
    if (due.previousSecret && due.previousSecretUntil && due.previousSecretUntil > now) {
      secrets.push(this.secrets.open(due.previousSecret));
    }
    try {
      const response = await request(due.url, {
        method: 'POST',
        body,
        dispatcher: this.agent,
        signal: AbortSignal.timeout(this.config.WEBHOOK_TIMEOUT),
        headers: {
          'content-type': 'application/json',
          'user-agent': 'waitlist-webhooks/1',
          ...signingHeaders(due.signatureFormat, secrets, { eventId: due.eventId, body, unixSeconds: Math.floor(now.getTime() / 1000) }),
          'service-event': due.eventType,
          'service-delivery': due.id,
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
}
