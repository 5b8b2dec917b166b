import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  APP_CONFIG,
  AppConfig,
  Clock,
  ENTRY_EVENT_TYPES,
  EventEnvelope,
  EventRecord,
  isPublicAddress,
  Mode,
  newId,
  newSigningSecret,
  OutboxMessage,
  QueueName,
  SecretBox,
  SignatureFormat,
  WebhookEndpoint,
  webhookUrlProblem,
} from '@app/shared';
import { lookup } from 'node:dns/promises';
import type { ProductScope } from '../common/scope';
import { DataSource } from 'typeorm';
import { ApiError } from '../common/api-error';

/** After a rotation the old secret signs too, for a day. */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;

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

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {
    this.secrets = new SecretBox(config.ENCRYPTION_KEY);
  }

  /** The endpoints of a product and mode, oldest first. */
  async list(productId: string, mode: Mode): Promise<WebhookEndpoint[]> {
    return this.db.getRepository(WebhookEndpoint).find({ where: { productId, mode }, order: { createdAt: 'ASC' } });
  }

  /** The endpoint, if it belongs to this product and mode: endpoints of other products do not exist for the caller. */
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
      await manager.insert(EventRecord, { id: envelope.id, productId: endpoint.productId, mode: endpoint.mode, type: envelope.type, createdAt: now, body: null });
      // The body in the outbox row, as recordEvents puts it.
      await manager.insert(OutboxMessage, { queue: QueueName.Webhooks, name: 'fan-out', data: { eventId: envelope.id, endpointId }, createdAt: now, body: JSON.stringify(envelope) });
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

const badUrl = (message: string) => new ApiError('invalid_request', message, { param: 'url' });
