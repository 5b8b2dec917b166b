import { Entry, EVENT_ENVELOPE, EventEnvelope, EventType } from '@app/shared';
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { exampleEntry } from './examples';

/** When each event is sent, and the state its entry shows. */
const EVENTS: Record<EventType, { summary: string; description: string; state: Entry['state'] }> = {
  'entry.created': { summary: 'An address signed up', description: 'The entry is pending until its address is confirmed.', state: 'pending' },
  'entry.confirmed': { summary: 'An address was confirmed', description: 'The person pressed the button behind the confirmation link: the entry is in line and can be invited.', state: 'confirmed' },
  'entry.invited': {
    summary: 'An entry was invited',
    description: 'Its invitation mail was handed over, from the API or the dashboard. The event never holds the code. Sending the invitation again emits nothing.',
    state: 'invited',
  },
  'entry.redeemed': { summary: 'An invitation code was used up', description: 'Through POST /api/v1/invites/redeem; sent once per entry.', state: 'redeemed' },
  'entry.unsubscribed': {
    summary: 'A person unsubscribed',
    description: 'The person used the unsubscribe link of a mail and the entry was deleted; data.entry shows it as it was. Remove the address on your side too.',
    state: 'invited',
  },
  'entry.deleted': {
    summary: 'An entry was deleted',
    description: 'By the team in the dashboard or by DELETE /api/v1/entries/{id}; data.entry shows it as it was. Pending entries purged after 14 days emit nothing.',
    state: 'confirmed',
  },
  'entry.milestone': {
    summary: 'A referrer reached a milestone',
    description:
      'Its credited referrals reached a milestone reward the team set (data.milestone): sent once per entry and milestone, in the transaction of the credit or grant that reached it, never again for that milestone even when credit is revoked and granted again. Its places (if any) moved the entry up in the same transaction.',
    state: 'confirmed',
  },
  'entry.invitation_expired': {
    summary: 'An invitation expired unused',
    description:
      'Only for a product with a claim window: the invitation was not redeemed within it, so its code stopped working. data.entry shows the entry after the product\'s outcome: confirmed and back in the line (at its old place, or with a new confirmation number at the end), or, when the outcome deletes it, as it was (entry.deleted follows).',
    state: 'confirmed',
  },
  'entry.bounced': {
    summary: "An entry's address became undeliverable",
    description:
      "Only once a mail provider's bounces reach the service (docs/webhooks.md) or a receiving server refuses a mail for good at handover with MAIL_BOUNCE_ON_REFUSAL on: a hard bounce, or as many soft bounces as MAIL_SOFT_BOUNCE_LIMIT (data.bounce). Sent once per entry until the team clears the address in the dashboard; every entry of the address, in every product and mode, gets its own. The entry keeps its state, and invite-next and releases skip it while it is undeliverable.",
    state: 'confirmed',
  },
  'webhook.test': {
    summary: 'A test event',
    description: 'Sent only when a test event is asked for (dashboard or CLI), to that one endpoint whatever types it chose; data.entry is made up.',
    state: 'confirmed',
  },
};

const DELIVERY_HEADERS = z.object({
  'Service-Event': z.string().meta({ description: 'The event type, as type in the body.', example: 'entry.invited' }),
  'Service-Delivery': z.string().meta({ description: 'Id of this delivery; the same on every attempt.', example: 'dlv_3c5e7a9b1d2f4a6c8e0b2d4f' }),
  'Service-Signature': z
    .string()
    .optional()
    .meta({
      description:
        'Endpoints signed in our format (the default): t=<unix seconds>,v1=<hex>, the hex an HMAC-SHA256 keyed with the whole signing secret (whsec_…) over "<t>.<raw body>". During the 24 hours after a secret rotation a second v1= follows, made with the old secret. Check it over the body exactly as received, in constant time, and refuse a t older than five minutes.',
      example: 't=1795426200,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd',
    }),
  'webhook-id': z.string().optional().meta({ description: 'Endpoints set to the Standard Webhooks format: the event id, the same on every attempt.', example: 'evt_9a1b2c3d4e5f60718293a4b5' }),
  'webhook-timestamp': z.string().optional().meta({ description: 'Standard Webhooks format: unix seconds of this attempt.', example: '1795426200' }),
  'webhook-signature': z
    .string()
    .optional()
    .meta({
      description:
        'Standard Webhooks format: v1,<base64 HMAC-SHA256 over "<webhook-id>.<webhook-timestamp>.<raw body>", keyed with the base64-decoded part of the secret after whsec_>, space-separated when a rotation adds the old secret\'s. Any Standard Webhooks library verifies it.',
      example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
    }),
});

/** Either format's signature, never both (see the security schemes in document.ts). */
const SIGNED: Record<string, string[]>[] = [{ serviceSignature: [] }, { standardWebhooksSignature: [] }];

const exampleOf = (type: EventType): EventEnvelope => ({
  id: 'evt_9a1b2c3d4e5f60718293a4b5',
  type,
  createdAt: '2026-11-23T09:30:00.000Z',
  mode: 'live',
  productId: 'prod_0b1c2d3e4f5a6b7c8d9e0f1a',
  data: {
    entry: exampleEntry(EVENTS[type].state),
    ...(type === 'entry.milestone' ? { milestone: { referrals: 3, name: 'Three friends', places: 5, message: 'You skip 5 places.' } } : {}),
    ...(type === 'entry.bounced' ? { bounce: { kind: 'hard_bounce' as const, at: '2026-11-23T09:29:58.000Z' } } : {}),
  },
});

/**
 * The webhook deliveries, one per event type: a POST of the event envelope to each endpoint that chose
 * the type, signed in the endpoint's format. Only a 2xx within 5 seconds counts; anything else is tried
 * again after 1, 5, 30, 120 and 480 minutes.
 */
export const WEBHOOKS: ZodOpenApiPathsObject = Object.fromEntries(
  Object.entries(EVENTS).map(([type, { summary, description }]) => [
    type,
    {
      post: {
        operationId: `${type.replace(/\.(\w)/, (_, letter: string) => letter.toUpperCase())}Event`,
        tags: ['Webhooks'],
        summary,
        description: `${description} Skip repeats by the event id: a delivery can arrive more than once.`,
        security: SIGNED,
        requestParams: { header: DELIVERY_HEADERS },
        requestBody: { required: true, content: { 'application/json': { schema: EVENT_ENVELOPE, example: exampleOf(type as EventType) } } },
        responses: {
          '2XX': { description: 'Delivered: any 2xx answer within 5 seconds. Redirects are not followed.' },
          default: { description: 'Not delivered: tried again after 1, 5, 30, 120 and 480 minutes, each counted from the end of the failed attempt, then given up.' },
        },
      },
    },
  ]),
);
