import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { APP_CONFIG, AppConfig, Clock, DeliveryAttempt, groupCommits, Metrics, RetrySchedule, SecretBox, SignatureFormat, signingHeaders, webhookUrlProblem } from '@app/shared';
import { DataSource, EntityManager } from 'typeorm';
import { LRUCache } from 'lru-cache';
import { Agent } from 'undici';
import { Posts, Target } from './posts';
import { safeAgent } from './safe-agent';

/** Opened secrets and checked URLs kept, the most recently used. */
const MEMO_SIZE = 1000;

/** Where a delivery goes and how it is signed. */
export interface Endpoint {
  url: string;
  secret: Buffer;
  previousSecret: Buffer | null;
  previousSecretUntil: Date | null;
  signatureFormat: SignatureFormat;
}

/** An endpoint made ready for its attempts: its secrets opened, its URL as undici dispatches it. */
interface Ready {
  secret: string;
  previousSecret: string | null;
  target: Target;
}

/** A pending delivery with what its next attempt needs. */
export interface Due {
  id: string;
  eventId: string;
  eventType: string;
  /** When the event happened: a delivery's latency is counted from here. */
  eventCreatedAt: Date;
  /** Null only if it was deleted under a pending delivery. */
  body: string | null;
  /** Shared by the deliveries of one claim to the same endpoint. */
  endpoint: Endpoint;
  /** Attempts its log holds. */
  made: number;
}

/** Where an attempt left its delivery: ended, or pending for `delayMs` until the next one. */
export type Made = { status: 'succeeded' } | { status: 'failed'; reason: string } | { status: 'pending'; reason: string; delayMs: number };

/** An attempt's outcome label: where it left its delivery. */
const OUTCOMES: Record<Made['status'], string> = { succeeded: 'succeeded', pending: 'retrying', failed: 'given_up' };

/** An attempt made (none if the body is gone), not yet logged, and where it leaves its delivery. */
export interface Attempted {
  due: Due;
  attempt: DeliveryAttempt | null;
  made: Made;
  nextAttemptAt: Date | null;
}

/**
 * One attempt of one delivery, whoever makes it (the fan-out its first, the delivery worker the
 * retries): a POST of the stored body signed in the endpoint's format, a fresh signature per attempt,
 * only a 2xx within WEBHOOK_TIMEOUT counts, and the attempt logged (and counted from that log), with
 * where it leaves its delivery on the RetrySchedule, before the delivery counts as attempted. Loads
 * and logs are group commits of what the attempts in flight ask for (groupCommits).
 */
@Injectable()
export class Attempts implements OnApplicationShutdown {
  private readonly secrets: SecretBox;
  /**
   * A sealed secret is opened once per sealing rather than once per attempt, and a URL checked once:
   * the endpoint is still read with every claim and every retry, and a rotation seals a new secret, so
   * nothing here outlives a change.
   */
  private readonly opened = new LRUCache<string, string>({ max: MEMO_SIZE, memoMethod: (sealed) => this.secrets.open(Buffer.from(sealed, 'latin1')) });
  /** An endpoint as read, made ready once for the deliveries that share it. */
  private readonly ready = new WeakMap<Endpoint, Ready>();
  private readonly urlChecks = new LRUCache<string, { problem: string | null }>({
    max: MEMO_SIZE,
    memoMethod: (url) => ({ problem: webhookUrlProblem(url, this.config.WEBHOOK_ALLOW_PRIVATE_URLS) }),
  });
  private readonly agent: Agent;
  private readonly posts: Posts;
  private readonly due = groupCommits<string, Due | null>((ids) => this.loadDue(ids));
  private readonly logged = groupCommits<Attempted, void>((attempted) => this.record(attempted));
  private readonly attempts;
  private readonly latency;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly schedule: RetrySchedule,
    metrics: Metrics,
  ) {
    this.secrets = new SecretBox(config.ENCRYPTION_KEY);
    this.agent = safeAgent(config.WEBHOOK_ALLOW_PRIVATE_URLS, config.WEBHOOK_TIMEOUT);
    this.posts = new Posts(this.agent, config.WEBHOOK_TIMEOUT);
    this.attempts = metrics.counter({
      name: 'waitlist_delivery_attempts_total',
      help: 'Delivery attempts logged, by attempt number and where they left the delivery: succeeded, retrying or given_up',
      labelNames: ['attempt', 'outcome'],
    });
    this.latency = metrics.histogram({
      name: 'waitlist_delivery_latency_seconds',
      help: 'From an event to the 2xx of its delivery, retries included',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200, 43_200],
    });
  }

  /** After the fan-out and the worker ended their attempts (beforeApplicationShutdown). */
  async onApplicationShutdown(): Promise<void> {
    this.posts.close();
    await this.agent.close();
  }

  /** The delivery if it is still pending, with what its next attempt needs; null otherwise. */
  load(deliveryId: string): Promise<Due | null> {
    return this.due(deliveryId);
  }

  /** Makes the next attempt of a delivery and logs it. */
  async make(due: Due): Promise<Made> {
    return this.log(await this.attempt(due));
  }

  /** Makes the next attempt of a delivery (the POST, a slot's work), to be logged with log(). */
  async attempt(due: Due): Promise<Attempted> {
    if (due.body === null) return { due, attempt: null, made: { status: 'failed', reason: 'The event body is gone' }, nextAttemptAt: null };
    const attempt = due.made + 1;
    const started = this.clock.now();
    const outcome = await this.post(due, due.body, started);
    const logged = { deliveryId: due.id, attempt, attemptedAt: started, ...outcome, durationMs: Date.now() - started.getTime() };
    if (outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300) {
      return { due, attempt: logged, made: { status: 'succeeded' }, nextAttemptAt: null };
    }
    const delayMs = this.schedule.delayAfter(attempt);
    if (delayMs === null) return { due, attempt: logged, made: { status: 'failed', reason: `Given up after ${attempt} attempts` }, nextAttemptAt: null };
    const reason = outcome.error ?? `Answered ${outcome.statusCode}`;
    return { due, attempt: logged, made: { status: 'pending', reason, delayMs }, nextAttemptAt: new Date(Date.now() + delayMs) };
  }

  /** Logs an attempt after the first and moves its delivery on; where it left the delivery. */
  async log(attempted: Attempted): Promise<Made> {
    await this.logged(attempted);
    this.observe(attempted);
    return attempted.made;
  }

  /** Counts a logged attempt in the metrics. */
  observe({ made, attempt, due }: Attempted): void {
    if (attempt) this.attempts.inc({ attempt: attempt.attempt, outcome: OUTCOMES[made.status] });
    if (made.status === 'succeeded') this.latency.observe((this.clock.now().getTime() - due.eventCreatedAt.getTime()) / 1000);
  }

  /** The pending ones of these deliveries, each with its body, its endpoint and the attempts its log counts (so a job added again after Redis lost it goes on counting). */
  private async loadDue(ids: readonly string[]): Promise<(Due | null)[]> {
    const rows: (Omit<Due, 'endpoint'> & Endpoint)[] = await this.db.query(
      `SELECT d.id, d.event_id AS "eventId", d.event_type AS "eventType", e.created_at AS "eventCreatedAt", e.body, w.url, w.secret, w.previous_secret AS "previousSecret",
         w.previous_secret_until AS "previousSecretUntil", w.signature_format AS "signatureFormat",
         (SELECT count(*)::int FROM delivery_attempts a WHERE a.delivery_id = d.id) AS made
       FROM deliveries d JOIN events e ON e.id = d.event_id JOIN webhook_endpoints w ON w.id = d.endpoint_id
       WHERE d.id = ANY ($1::text[]) AND d.status = 'pending'`,
      [ids],
    );
    const byId = new Map(
      rows.map(({ url, secret, previousSecret, previousSecretUntil, signatureFormat, ...row }) => [
        row.id,
        { ...row, endpoint: { url, secret, previousSecret, previousSecretUntil, signatureFormat } },
      ]),
    );
    return ids.map((id) => byId.get(id) ?? null);
  }

  /**
   * Logs a batch of attempts after the first (in attempt_log) and moves their deliveries on: ended
   * (succeeded or given up), or waiting for the next attempt. An event's body is deleted once every
   * delivery of it has ended: the events of the deliveries that end are locked (in one order, so that
   * batches never deadlock), and a statement after the lock, in the same transaction, deletes the
   * bodies of those with no delivery left pending. A first attempt whose delivery is not yet written
   * keeps its event's body (the fan-out writes it again if that delivery waits for a retry).
   */
  private async record(outcomes: readonly Attempted[]): Promise<void[]> {
    const attempts = outcomes.flatMap((outcome) => (outcome.attempt ? [outcome.attempt] : []));
    const ended = [...new Set(outcomes.filter((outcome) => outcome.made.status !== 'pending').map((outcome) => outcome.due.eventId))].sort();
    const write = async (manager: EntityManager) => {
      await manager.query(
        `WITH locked AS (SELECT id FROM events WHERE id = ANY ($1::text[]) ORDER BY id FOR UPDATE),
         logged AS (
           INSERT INTO attempt_log (delivery_id, attempt, attempted_at, status_code, error, duration_ms)
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
          ended,
          attempts.map((row) => row.deliveryId),
          attempts.map((row) => row.attempt),
          attempts.map((row) => row.attemptedAt),
          attempts.map((row) => row.statusCode),
          attempts.map((row) => row.error),
          attempts.map((row) => row.durationMs),
          outcomes.map((outcome) => outcome.due.id),
          outcomes.map((outcome) => outcome.made.status),
          outcomes.map((outcome) => outcome.nextAttemptAt),
          this.clock.now(),
        ],
      );
      if (ended.length === 0) return;
      await manager.query(
        `UPDATE events SET body = NULL WHERE id = ANY ($1::text[])
         AND NOT EXISTS (SELECT 1 FROM deliveries WHERE event_id = events.id AND status = 'pending')`,
        [ended],
      );
    };
    // One statement needs no transaction of its own.
    await (ended.length ? this.db.transaction(write) : write(this.db.manager));
    return outcomes.map(() => undefined);
  }

  /** One attempt: the status code, or what went wrong (never the response body, never the secret). */
  private async post(due: Due, body: string, now: Date): Promise<{ statusCode: number | null; error: string | null }> {
    const { endpoint } = due;
    const { problem } = this.urlChecks.memo(endpoint.url);
    if (problem) return { statusCode: null, error: `refused: the URL ${problem}` };
    const ready = this.readyOf(endpoint);
    const secrets = ready.previousSecret && endpoint.previousSecretUntil! > now ? [ready.secret, ready.previousSecret] : [ready.secret];
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'waitlist-webhooks/1',
      ...signingHeaders(endpoint.signatureFormat, secrets, { eventId: due.eventId, body, unixSeconds: Math.floor(now.getTime() / 1000) }),
      'service-event': due.eventType,
      'service-delivery': due.id,
    };
    const answer = await this.posts.send(ready.target, headers, body);
    if (answer.error === null) return answer;
    const { name, code, message } = answer.error as Error & { code?: string };
    if (name === 'TimeoutError') return { statusCode: null, error: `no answer within ${this.config.WEBHOOK_TIMEOUT} ms` };
    return { statusCode: null, error: code === 'EPRIVATE' ? (message ?? code) : (code ?? message ?? 'error') };
  }

  /** An endpoint made ready once per endpoint object (a claim's deliveries share one). */
  private readyOf(endpoint: Endpoint): Ready {
    let ready = this.ready.get(endpoint);
    if (!ready) {
      const open = (sealed: Buffer) => this.opened.memo(sealed.toString('latin1'));
      const url = new URL(endpoint.url);
      ready = {
        secret: open(endpoint.secret),
        previousSecret: endpoint.previousSecret && endpoint.previousSecretUntil ? open(endpoint.previousSecret) : null,
        target: { origin: url.origin, path: `${url.pathname}${url.search}` },
      };
      this.ready.set(endpoint, ready);
    }
    return ready;
  }
}
