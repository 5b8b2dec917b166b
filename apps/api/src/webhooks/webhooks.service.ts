import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  APP_CONFIG,
  AppConfig,
  Clock,
  ENTRY_EVENT_TYPES,
  enqueue,
  EventEnvelope,
  EventRecord,
  isPublicAddress,
  Mode,
  newId,
  newToken,
  QueueName,
  SecretBox,
  WebhookEndpoint,
  webhookUrlProblem,
} from '@app/shared';
import { lookup } from 'node:dns/promises';
import { DataSource } from 'typeorm';

export class WebhookError extends Error {}

export interface NewEndpoint {
  productId: string;
  mode: Mode;
  url: string;
  /** Entry event types; all of them when omitted. */
  events?: string[];
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

  /** A new endpoint; its signing secret is returned this once and stored only encrypted. */
  async create(input: NewEndpoint): Promise<{ id: string; secret: string }> {
    await this.checkUrl(input.url);
    const events = input.events ?? [...ENTRY_EVENT_TYPES];
    const unknown = events.filter((type) => !(ENTRY_EVENT_TYPES as readonly string[]).includes(type));
    if (unknown.length || events.length === 0) {
      throw new WebhookError(`Events must be among ${ENTRY_EVENT_TYPES.join(', ')}${unknown.length ? `; unknown: ${unknown.join(', ')}` : ''}.`);
    }
    const secret = newToken('whsec_');
    const id = newId('we');
    await this.db.getRepository(WebhookEndpoint).insert({
      id,
      productId: input.productId,
      mode: input.mode,
      url: input.url,
      events: [...new Set(events)],
      secret: this.secrets.seal(secret),
      createdAt: this.clock.now(),
    });
    return { id, secret };
  }

  /** Sends webhook.test to one endpoint, whatever types it chose, with a made-up entry. */
  async sendTest(endpointId: string): Promise<{ eventId: string }> {
    const endpoint = await this.db.getRepository(WebhookEndpoint).findOneBy({ id: endpointId });
    if (!endpoint) throw new WebhookError(`No webhook endpoint ${endpointId}.`);
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
    if (problem) throw new WebhookError(`The URL ${problem}.`);
    if (allowPrivate) return;
    const addresses = await lookup(new URL(url).hostname.replace(/^\[|\]$/g, ''), { all: true }).catch(() => []);
    if (addresses.length === 0) throw new WebhookError('The URL’s host does not resolve.');
    if (addresses.some(({ address }) => !isPublicAddress(address))) throw new WebhookError('The URL must point at a public address.');
  }
}
