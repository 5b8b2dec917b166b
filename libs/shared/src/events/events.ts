import type { EntityManager } from 'typeorm';
import { z } from 'zod';
import { Entry, ENTRY, TIMESTAMP } from '../domain/entry';
import { Mode, MODES } from '../domain/modes';
import { newId } from '../domain/secrets';
import { QueueName } from '../queues/contract';

export const ENTRY_EVENT_TYPES = [
  'entry.created',
  'entry.confirmed',
  'entry.invited',
  'entry.redeemed',
  'entry.unsubscribed',
  'entry.deleted',
  'entry.milestone',
  'entry.invitation_expired',
  'entry.bounced',
] as const;
export type EntryEventType = (typeof ENTRY_EVENT_TYPES)[number];
export const EVENT_TYPES = [...ENTRY_EVENT_TYPES, 'webhook.test'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** A milestone reward as entry.milestone carries it: the one reached. */
export const MILESTONE = z
  .strictObject({
    referrals: z.number().int().min(1).meta({ description: 'The credited referrals that reach it.', example: 3 }),
    name: z.string().meta({ description: 'Its name, as the team set it.', example: 'Three friends' }),
    places: z.number().int().min(0).meta({ description: 'The places the milestone gives (0: none): a waiting entry moved up by them; an entry no longer waiting reaches the milestone and stays where it is.', example: 5 }),
    message: z.string().nullable().meta({ description: 'The line of text the team set for the person; null when none.', example: 'You skip 5 places.' }),
  })
  .meta({ id: 'Milestone', description: 'A milestone reward an entry reached, as entry.milestone carries it.' });
export type MilestoneView = z.infer<typeof MILESTONE>;

/** What made an entry's address undeliverable, as entry.bounced carries it. */
export const BOUNCE = z
  .strictObject({
    kind: z.enum(['hard_bounce', 'soft_bounce']).meta({ description: 'hard_bounce: the address was refused for good (by the mail provider, or by the receiving server at handover); soft_bounce: it bounced for a while as many times as the limit the deployment set.' }),
    at: TIMESTAMP.meta({ description: 'When the provider saw the bounce that did it.' }),
  })
  .meta({ id: 'Bounce', description: "What made an entry's address undeliverable, as entry.bounced carries it." });
export type BounceView = z.infer<typeof BOUNCE>;

/** What an event carries besides its entry: entry.milestone, the milestone; entry.bounced, the bounce. */
export type EventExtra = { milestone?: MilestoneView; bounce?: BounceView };

/** The webhook event envelope, as every delivery's body carries it; the OpenAPI document renders it. */
export const EVENT_ENVELOPE = z
  .strictObject({
    id: z.string().meta({ description: 'Id of the event, the same on every attempt: skip repeats by it.', example: 'evt_9a1b2c3d4e5f60718293a4b5' }),
    type: z.enum(EVENT_TYPES).meta({ description: 'What happened.' }),
    createdAt: TIMESTAMP.meta({ description: 'When it happened.' }),
    mode: z.enum(MODES).meta({ description: 'live endpoints receive live events only, test endpoints test events only.' }),
    productId: z.string().meta({ description: 'The product the event belongs to.', example: 'prod_0b1c2d3e4f5a6b7c8d9e0f1a' }),
    data: z.strictObject({
      entry: ENTRY,
      milestone: MILESTONE.optional().meta({ description: 'entry.milestone only: the milestone reached.' }),
      bounce: BOUNCE.optional().meta({ description: 'entry.bounced only: the bounce that made the address undeliverable.' }),
    }),
  })
  .meta({ id: 'Event', description: 'The body of every webhook delivery.' });
export type EventEnvelope = z.infer<typeof EVENT_ENVELOPE>;

/**
 * Records an event in the caller's transaction (the transactional outbox): the event exists if and
 * only if the change that emits it commits. The body is stored as the exact bytes every delivery sends.
 */
export async function recordEvent(
  manager: EntityManager,
  type: EntryEventType,
  scope: { productId: string; mode: Mode },
  entry: Entry,
  now: Date,
  extra: EventExtra = {},
): Promise<EventEnvelope> {
  const [envelope] = await recordEvents(manager, type, scope, [entry], now, extra);
  return envelope;
}

/** A new event, as its row keeps it and every delivery sends it. */
export function eventEnvelope(type: EntryEventType, scope: { productId: string; mode: Mode }, entry: Entry, now: Date, extra: EventExtra = {}): EventEnvelope {
  return { id: newId('evt'), type, createdAt: now.toISOString(), mode: scope.mode, productId: scope.productId, data: { entry, ...extra } };
}

/** recordEvent for several entries of one product and mode at once: three statements, however many. */
export async function recordEvents(
  manager: EntityManager,
  type: EntryEventType,
  scope: { productId: string; mode: Mode },
  entries: Entry[],
  now: Date,
  extra: EventExtra = {},
): Promise<EventEnvelope[]> {
  if (entries.length === 0) return [];
  const envelopes = entries.map((entry) => eventEnvelope(type, scope, entry, now, extra));
  // One statement over arrays, whatever the count: the ORM's insert builds a parameter per value.
  // The body goes in the event's outbox row, which the fan-out deletes with its first attempts logged.
  // The bodies go as one text, a line each (JSON.stringify writes no line break): as an array, pg would
  // escape every quote of every body first, some 3 µs a body.
  await manager.query(
    `WITH made AS (SELECT * FROM unnest($1::text[], string_to_array($6, E'\\n')) AS made (id, body)),
     event AS (INSERT INTO events (id, product_id, mode, type, created_at) SELECT id, $2, $3, $4, $5 FROM made)
     INSERT INTO outbox (queue, name, data, created_at, body) SELECT $7, 'fan-out', jsonb_build_object('eventId', id), $5, body FROM made`,
    [envelopes.map((envelope) => envelope.id), scope.productId, scope.mode, type, now, envelopes.map((envelope) => JSON.stringify(envelope)).join('\n'), QueueName.Webhooks],
  );
  // Last, as the events of a product and day on this connection's stripe (CounterStripes1763884800000)
  // share this row: its lock is held only until the commit.
  await countOfDay(manager, scope, type, now, envelopes.length);
  return envelopes;
}

/**
 * Adds to the day's (UTC) count of a kind for the overview: an event's type, or what was counted
 * without one (a refused sign-up: refused:<reason>).
 */
export async function countOfDay(manager: Pick<EntityManager, 'query'>, scope: { productId: string; mode: Mode }, type: string, now: Date, count: number): Promise<void> {
  await manager.query(
    `INSERT INTO daily_event_counts (product_id, mode, day, type, count) VALUES ($1, $2, ($3::timestamptz AT TIME ZONE 'UTC')::date, $4, $5)
     ON CONFLICT (product_id, mode, day, type, stripe) DO UPDATE SET count = daily_event_counts.count + EXCLUDED.count`,
    [scope.productId, scope.mode, now, type, count],
  );
}
