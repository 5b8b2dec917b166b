import type { EntityManager } from 'typeorm';
import { z } from 'zod';
import { EventRecord } from '../database/entities';
import { Entry, ENTRY, TIMESTAMP } from '../domain/entry';
import { Mode, MODES } from '../domain/modes';
import { newId } from '../domain/secrets';
import { enqueueEach } from '../outbox/outbox';
import { QueueName } from '../queues/contract';

export const ENTRY_EVENT_TYPES = [
  'entry.created',
  'entry.confirmed',
  'entry.invited',
  'entry.redeemed',
  'entry.unsubscribed',
  'entry.deleted',
] as const;
export type EntryEventType = (typeof ENTRY_EVENT_TYPES)[number];
export const EVENT_TYPES = [...ENTRY_EVENT_TYPES, 'webhook.test'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The webhook event envelope, as every delivery's body carries it; the OpenAPI document renders it. */
export const EVENT_ENVELOPE = z
  .strictObject({
    id: z.string().meta({ description: 'Id of the event, the same on every attempt: skip repeats by it.', example: 'evt_9a1b2c3d4e5f60718293a4b5' }),
    type: z.enum(EVENT_TYPES).meta({ description: 'What happened.' }),
    createdAt: TIMESTAMP.meta({ description: 'When it happened.' }),
    mode: z.enum(MODES).meta({ description: 'live endpoints receive live events only, test endpoints test events only.' }),
    productId: z.string().meta({ description: 'The product the event belongs to.', example: 'prod_0b1c2d3e4f5a6b7c8d9e0f1a' }),
    data: z.strictObject({ entry: ENTRY }),
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
): Promise<EventEnvelope> {
  const [envelope] = await recordEvents(manager, type, scope, [entry], now);
  return envelope;
}

/** A new event, as its row keeps it and every delivery sends it. */
export function eventEnvelope(type: EntryEventType, scope: { productId: string; mode: Mode }, entry: Entry, now: Date): EventEnvelope {
  return { id: newId('evt'), type, createdAt: now.toISOString(), mode: scope.mode, productId: scope.productId, data: { entry } };
}

/** recordEvent for several entries of one product and mode at once: three statements, however many. */
export async function recordEvents(
  manager: EntityManager,
  type: EntryEventType,
  scope: { productId: string; mode: Mode },
  entries: Entry[],
  now: Date,
): Promise<EventEnvelope[]> {
  if (entries.length === 0) return [];
  const envelopes = entries.map((entry) => eventEnvelope(type, scope, entry, now));
  await manager.insert(
    EventRecord,
    envelopes.map((envelope) => ({ id: envelope.id, productId: scope.productId, mode: scope.mode, type, createdAt: now, body: JSON.stringify(envelope) })),
  );
  await enqueueEach(manager, QueueName.Webhooks, 'fan-out', envelopes.map((envelope) => ({ eventId: envelope.id })), now);
  // Last, as the events of a product and day on this connection's stripe (CounterStripes1763884800000)
  // share this row: its lock is held only until the commit.
  await manager.query(
    `INSERT INTO daily_event_counts (product_id, mode, day, type, count) VALUES ($1, $2, ($3::timestamptz AT TIME ZONE 'UTC')::date, $4, $5)
     ON CONFLICT (product_id, mode, day, type, stripe) DO UPDATE SET count = daily_event_counts.count + EXCLUDED.count`,
    [scope.productId, scope.mode, now, type, envelopes.length],
  );
  return envelopes;
}
