import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  APP_CONFIG,
  AppConfig,
  Clock,
  CommandQueue,
  Delivery,
  DeliveryAttempt,
  ENTRY_EVENT_TYPES,
  enqueue,
  EventEnvelope,
  EventRecord,
  isPublicAddress,
  Mode,
  newId,
  newSigningSecret,
  QueueName,
  RetrySchedule,
  SecretBox,
  SignatureFormat,
  WebhookEndpoint,
  webhookUrlProblem,
  withTimeout,
} from '@app/shared';
import { lookup } from 'node:dns/promises';
import type { ProductScope } from '../common/scope';
import { DataSource, IsNull, MoreThan, Not } from 'typeorm';
import { ApiError } from '../common/api-error';
import { JobQueues } from '../common/job-queues';

const RETRY_NOW_TIMEOUT_MS = 3000;

/** The delivery log keeps the last 100 deliveries of an endpoint from the last 30 days. */
export const DELIVERY_LOG = { size: 100, days: 30 } as const;
/** After a rotation the old secret signs too, for a day. */
const ROTATION_OVERLAP_MS = 24 * 3_600_000;

export interface LoggedDelivery {
  id: string;
  eventId: string;
  eventType: string;
  status: Delivery['status'];
  createdAt: Date;
  nextAttemptAt: Date | null;
  attempts: Pick<DeliveryAttempt, 'attempt' | 'attemptedAt' | 'statusCode' | 'error' | 'durationMs'>[];
}

export interface NewEndpoint {
  productId: string;
  mode: Mode;
  url: string;
  /** Entry event types; all of them when omitted. */
  events?: string[];
  /** How its deliveries are signed, for good: ours when omitted. */
  signatureFormat?: SignatureFormat;
}

/** Webhook endpoints of a product and mode; the dashboard and the CLI both work through this service. */
@Injectable()
export class WebhooksService {
  private readonly secrets: SecretBox;
  /** Only for "retry now": fails fast while Redis is away, since an operator's click must not wait for it. */
  private readonly deliveries: CommandQueue;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clock: Clock,
    queues: JobQueues,
  ) {
    this.secrets = new SecretBox(config.ENCRYPTION_KEY);
    this.deliveries = queues.get(QueueName.Deliveries);
  }

  /** The endpoints of a product and mode, oldest first. */
  async list(productId: string, mode: Mode): Promise<WebhookEndpoint[]> {
    return this.db.getRepository(WebhookEndpoint).find({ where: { productId, mode }, order: { createdAt: 'ASC' } });
  }

  /** One endpoint of the product, or null: endpoints of other products do not exist for the caller. */
  /** The endpoint, if it belongs to this product and mode. */
  async endpointOf(scope: ProductScope, endpointId: string): Promise<WebhookEndpoint | null> {
    return this.db.getRepository(WebhookEndpoint).findOneBy({ id: endpointId, productId: scope.productId, mode: scope.mode });
  }

  /** Removes the endpoint with its deliveries and their log. */
  async remove(endpointId: string): Promise<void> {
    await this.db.getRepository(WebhookEndpoint).delete({ id: endpointId });
  }

  /** A new signing secret of the endpoint's format, shown once; for 24 hours the old one signs too (a second v1 after the new). */
  async rotateSecret(endpointId: string): Promise<{ secret: string }> {
    const endpoint = await this.find(endpointId);
    const secret = newSigningSecret(endpoint.signatureFormat);
    await this.db.getRepository(WebhookEndpoint).update(
      { id: endpoint.id },
      {
        secret: this.secrets.seal(secret),
        previousSecret: endpoint.secret,
        previousSecretUntil: new Date(this.clock.now().getTime() + ROTATION_OVERLAP_MS),
      },
    );
    return { secret };
  }

  /** A disabled endpoint gets no new deliveries; deliveries already made still run their course. */
  async setDisabled(endpointId: string, disabled: boolean): Promise<void> {
    const endpoint = await this.find(endpointId);
    await this.db.getRepository(WebhookEndpoint).update({ id: endpoint.id }, { disabledAt: disabled ? this.clock.now() : null });
  }

  /** The endpoint's last 100 deliveries of the last 30 days, newest first, each with its attempts. */
  async deliveryLog(endpointId: string): Promise<LoggedDelivery[]> {
    const since = new Date(this.clock.now().getTime() - DELIVERY_LOG.days * 86_400_000);
    const deliveries = await this.db.getRepository(Delivery).find({
      where: { endpointId, createdAt: MoreThan(since) },
      order: { createdAt: 'DESC', id: 'DESC' },
      take: DELIVERY_LOG.size,
    });
    const attempts = deliveries.length
      ? await this.db
          .getRepository(DeliveryAttempt)
          .createQueryBuilder('a')
          .where('a.delivery_id IN (:...ids)', { ids: deliveries.map((delivery) => delivery.id) })
          .orderBy('a.attempt', 'ASC')
          .getMany()
      : [];
    return deliveries.map((delivery) => ({
      id: delivery.id,
      eventId: delivery.eventId,
      eventType: delivery.eventType,
      status: delivery.status,
      createdAt: delivery.createdAt,
      nextAttemptAt: delivery.nextAttemptAt,
      attempts: attempts
        .filter((attempt) => attempt.deliveryId === delivery.id)
        .map(({ attempt, attemptedAt, statusCode, error, durationMs }) => ({ attempt, attemptedAt, statusCode, error, durationMs })),
    }));
  }

  /**
   * Sends a delivery that waits for its next attempt at once. Only while it waits: once delivered or
   * given up its body is gone, and the log keeps the metadata alone. A job Redis lost is added again.
   */
  async retryNow(deliveryId: string): Promise<void> {
    const delivery = await this.db.getRepository(Delivery).findOneBy({ id: deliveryId, status: 'pending', nextAttemptAt: Not(IsNull()) });
    if (!delivery) throw notWaiting();
    const promoted = await withTimeout(
      (async () => {
        const job = await this.deliveries.getJob(delivery.id);
        if (!job) {
          const { name, data, opts } = new RetrySchedule(this.config.WEBHOOK_RETRY_DELAYS).job(delivery.id);
          await this.deliveries.add(name, data, opts);
          return true;
        }
        if (!(await job.isDelayed())) return false;
        await job.promote();
        return true;
      })(),
      RETRY_NOW_TIMEOUT_MS,
      'retry now',
    ).catch(() => {
      throw new ApiError('queue_unavailable', 'The queue cannot be reached right now. Try again in a moment.');
    });
    if (!promoted) throw notWaiting();
  }

  private async find(endpointId: string): Promise<WebhookEndpoint> {
    const endpoint = await this.db.getRepository(WebhookEndpoint).findOneBy({ id: endpointId });
    if (!endpoint) throw new ApiError('not_found', `No webhook endpoint ${endpointId}.`);
    return endpoint;
  }

  /** A new endpoint; its signing secret is returned this once and stored only encrypted. */
  async create(input: NewEndpoint): Promise<{ id: string; secret: string }> {
    await this.checkUrl(input.url);
    const events = input.events ?? [...ENTRY_EVENT_TYPES];
    const unknown = events.filter((type) => !(ENTRY_EVENT_TYPES as readonly string[]).includes(type));
    if (unknown.length || events.length === 0) {
      const listed = unknown.length ? `; unknown: ${unknown.join(', ')}` : '';
      throw new ApiError('invalid_request', `Events must be among ${ENTRY_EVENT_TYPES.join(', ')}${listed}.`, { param: 'events' });
    }
    const signatureFormat = input.signatureFormat ?? 'service';
    const secret = newSigningSecret(signatureFormat);
    const id = newId('we');
    await this.db.getRepository(WebhookEndpoint).insert({
      id,
      productId: input.productId,
      mode: input.mode,
      url: input.url,
      events: [...new Set(events)],
      secret: this.secrets.seal(secret),
      signatureFormat,
      createdAt: this.clock.now(),
    });
    return { id, secret };
  }

  /** Sends webhook.test to one endpoint, whatever types it chose, with a made-up entry. */
  async sendTest(endpointId: string): Promise<{ eventId: string }> {
    const endpoint = await this.find(endpointId);
    const now = this.clock.now();
    const envelope: EventEnvelope = {
      id: newId('evt'),
      type: 'webhook.test',
      createdAt: now.toISOString(),
      mode: endpoint.mode,
      productId: endpoint.productId,
      data: {
        entry: {
          id: newId('ent'),
          email: 'test@example.com',
          state: 'confirmed',
          createdAt: now.toISOString(),
          confirmedAt: now.toISOString(),
          invitedAt: null,
          redeemedAt: null,
          referralCode: 'testcode2345',
          referrals: 0,
        },
      },
    };
    await this.db.transaction(async (manager) => {
      await manager.insert(EventRecord, {
        id: envelope.id,
        productId: endpoint.productId,
        mode: endpoint.mode,
        type: envelope.type,
        createdAt: now,
        body: JSON.stringify(envelope),
      });
      await enqueue(manager, QueueName.Webhooks, 'fan-out', { eventId: envelope.id, endpointId }, now);
    });
    return { eventId: envelope.id };
  }

  /** https and public addresses only (unless WEBHOOK_ALLOW_PRIVATE_URLS); a host name must resolve to public ones. */
  private async checkUrl(url: string): Promise<void> {
    const allowPrivate = this.config.WEBHOOK_ALLOW_PRIVATE_URLS;
    const problem = webhookUrlProblem(url, allowPrivate);
    if (problem) throw badUrl(`The URL ${problem}.`);
    if (allowPrivate) return;
    const addresses = await lookup(new URL(url).hostname.replace(/^\[|\]$/g, ''), { all: true }).catch(() => []);
    if (addresses.length === 0) throw badUrl('The URL’s host does not resolve.');
    if (addresses.some(({ address }) => !isPublicAddress(address))) throw badUrl('The URL must point at a public address.');
  }
}

const notWaiting = () => new ApiError('delivery_not_waiting', 'This delivery is not waiting for a retry.');
const badUrl = (message: string) => new ApiError('invalid_request', message, { param: 'url' });
