import type { EntityManager } from 'typeorm';
import { EventRecord } from '../database/entities';
import type { Entry } from '../domain/entry';
import type { Mode } from '../domain/modes';
import { newId } from '../domain/secrets';
import { enqueue } from '../outbox/outbox';
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
export type EventType = EntryEventType | 'webhook.test';

/** The webhook event envelope of SPEC.md. */
export interface EventEnvelope {
  id: string;
  type: EventType;
  createdAt: string;
  mode: Mode;
  productId: string;
  data: { entry: Entry };
}

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
  const envelope: EventEnvelope = {
    id: newId('evt'),
    type,
    createdAt: now.toISOString(),
    mode: scope.mode,
    productId: scope.productId,
    data: { entry },
  };
  await manager.insert(EventRecord, {
    id: envelope.id,
    productId: scope.productId,
    mode: scope.mode,
    type,
    createdAt: now,
    body: JSON.stringify(envelope),
  });
  await enqueue(manager, QueueName.Webhooks, 'fan-out', { eventId: envelope.id }, now);
  // Last, as every event of a product and day shares this row: its lock is held only until the commit.
  await manager.query(
    `INSERT INTO daily_event_counts (product_id, mode, day, type, count) VALUES ($1, $2, ($3::timestamptz AT TIME ZONE 'UTC')::date, $4, 1)
     ON CONFLICT (product_id, mode, day, type) DO UPDATE SET count = daily_event_counts.count + 1`,
    [scope.productId, scope.mode, now, type],
  );
  return envelope;
}
