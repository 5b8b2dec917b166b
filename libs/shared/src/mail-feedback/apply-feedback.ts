import type { EntityManager } from 'typeorm';
import { EntryRecord } from '../database/entities/entry';
import { normalizeEmail } from '../domain/email';
import { STORED_ENTRY_COLUMNS, StoredEntry, toEntry } from '../domain/entry';
import type { Mode } from '../domain/modes';
import { recordEvents } from '../events/events';
import type { FeedbackKind, MailFeedback } from './feedback';

/** A bounce, as the mailer meets one at the handover (a 5xx) and the providers report them. */
export type Bounce = MailFeedback & { kind: 'hard_bounce' | 'soft_bounce' };

export interface BounceRules {
  now: Date;
  /** Soft bounces that make an address undeliverable (MAIL_SOFT_BOUNCE_LIMIT). */
  softBounceLimit: number;
}

export interface FeedbackRules extends BounceRules {
  /** A complaint unsubscribes each entry of its address with the hosted unsubscribe's own steps, in this transaction. */
  unsubscribe: (manager: EntityManager, entry: EntryRecord, now: Date) => Promise<void>;
}

/** False for a replay: the provider's event was applied before, and nothing changes. */
export type Applied = boolean;

/** How long an applied event's id is kept against replays: longer than any provider retries. */
export const FEEDBACK_MEMORY_DAYS = 30;

/**
 * One bounce or complaint, in the caller's transaction, once per provider and event id. It names an
 * address, and the address is the deployment's (one sender for every product): it touches every entry
 * of that address, in every product and mode (docs/decisions/mail.md, "Bounces and complaints").
 */
export async function applyFeedback(manager: EntityManager, feedback: MailFeedback, rules: FeedbackRules): Promise<Applied> {
  if (feedback.kind !== 'complaint') return applyBounce(manager, { ...feedback, kind: feedback.kind }, rules);
  if (!(await firstTime(manager, feedback, rules.now))) return false;
  const entries = await entriesOf(manager, feedback.address);
  for (const entry of entries) await rules.unsubscribe(manager, entry, rules.now);
  await countDaily(manager, feedback.kind, entries, rules.now);
  return true;
}

/**
 * A bounce: a hard one marks the address undeliverable at once, soft ones when they reach the limit;
 * each entry that becomes undeliverable emits entry.bounced (data.bounce: the kind that did it). An
 * address undeliverable already stays as it was, its soft bounces still counted.
 */
export async function applyBounce(manager: EntityManager, bounce: Bounce, rules: BounceRules): Promise<Applied> {
  if (!(await firstTime(manager, bounce, rules.now))) return false;
  const email = normalizeEmail(bounce.address);
  if (!email) return true;
  const [rows]: [(StoredEntry & { productId: string; mode: Mode; newly: boolean })[], number] = await manager.query(
    `WITH old AS (SELECT id, undeliverable_at FROM entries WHERE email = $1 ORDER BY id FOR UPDATE)
     UPDATE entries e SET soft_bounces = e.soft_bounces + $2,
       undeliverable_at = CASE WHEN e.undeliverable_at IS NULL AND ($3 OR e.soft_bounces + $2 >= $4) THEN $5 ELSE e.undeliverable_at END
     FROM old WHERE e.id = old.id
     RETURNING e.id, e.product_id AS "productId", e.mode, old.undeliverable_at IS NULL AND e.undeliverable_at IS NOT NULL AS newly,
       ${STORED_ENTRY_COLUMNS}`,
    [email, bounce.kind === 'soft_bounce' ? 1 : 0, bounce.kind === 'hard_bounce', rules.softBounceLimit, rules.now],
  );
  for (const { scope, entries } of byScope(rows.filter((row) => row.newly))) {
    await recordEvents(manager, 'entry.bounced', scope, entries.map(toEntry), rules.now, { bounce: { kind: bounce.kind, at: bounce.at.toISOString() } });
  }
  await countDaily(manager, bounce.kind, rows, rules.now);
  return true;
}

/** Forgets the ids of events applied more than FEEDBACK_MEMORY_DAYS ago (the maintenance round). */
export async function forgetAppliedFeedback(manager: EntityManager, now: Date): Promise<void> {
  await manager.query(`DELETE FROM mail_feedback WHERE applied_at < $1`, [new Date(now.getTime() - FEEDBACK_MEMORY_DAYS * 86_400_000)]);
}

async function firstTime(manager: EntityManager, feedback: MailFeedback, now: Date): Promise<boolean> {
  const rows: unknown[] = await manager.query(
    `INSERT INTO mail_feedback (provider, event_id, kind, applied_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING 1`,
    [feedback.provider, feedback.eventId, feedback.kind, now],
  );
  return rows.length === 1;
}

async function entriesOf(manager: EntityManager, address: string): Promise<EntryRecord[]> {
  const email = normalizeEmail(address);
  if (!email) return [];
  return manager.getRepository(EntryRecord).find({ where: { email }, order: { id: 'ASC' }, lock: { mode: 'pessimistic_write' } });
}

/** Events are recorded per product and mode. */
function byScope<T extends { productId: string; mode: Mode }>(rows: T[]): { scope: { productId: string; mode: Mode }; entries: T[] }[] {
  const groups = new Map<string, { scope: { productId: string; mode: Mode }; entries: T[] }>();
  for (const row of rows) {
    const key = `${row.productId}:${row.mode}`;
    if (!groups.has(key)) groups.set(key, { scope: { productId: row.productId, mode: row.mode }, entries: [] });
    groups.get(key)!.entries.push(row);
  }
  return [...groups.values()];
}

/**
 * The overview's bounce and complaint rates: each entry a feedback touched, on its day's count
 * (daily_mail_counts, in the stripe of this connection). The mails sent, what the rates divide by, are
 * counted by the mailer's own statements that make them (countedIn).
 */
async function countDaily(manager: EntityManager, kind: FeedbackKind, entries: { productId: string; mode: Mode }[], now: Date): Promise<void> {
  if (entries.length === 0) return;
  await manager.query(countedIn('unnest($1::text[], $2::text[]) AS t (product_id, mode)', '$3', '$4'), [
    entries.map((entry) => entry.productId),
    entries.map((entry) => entry.mode),
    now,
    kind,
  ]);
}

/**
 * The statement that adds each row of `rows` (a relation with product_id and mode) to its day's count of
 * `kind`, the day of the timestamp `at`: on its own, or as a part of the statement that makes the mails.
 */
export function countedIn(rows: string, at: string, kind: string): string {
  return `INSERT INTO daily_mail_counts (product_id, mode, day, kind, count)
     SELECT product_id, mode, (${at}::timestamptz AT TIME ZONE 'UTC')::date, ${kind}, count(*) FROM ${rows}
     GROUP BY 1, 2 ORDER BY 1, 2
     ON CONFLICT (product_id, mode, day, kind, stripe) DO UPDATE SET count = daily_mail_counts.count + EXCLUDED.count`;
}
