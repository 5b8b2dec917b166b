import type { EventEnvelope, PlaceCause, Referral, ReferralReason, ReferralState } from '@app/shared';
import type { ProductScope } from '../common/scope';

/** What a confirmation decided before it takes its number (LineService.join). */
export interface Joining {
  entry: { id: string } & ProductScope;
  now: Date;
  referralCode: string;
  /** Whether the entry keeps its referred_by, which names the referrer its referral counts or waits for: not when it was withheld. */
  keepsReferrer: boolean;
  referral: ({ id: string; state: ReferralState; reasons: ReferralReason[]; network: string | null } & Pick<Referral, 'creditAt' | 'creditAfter'>) | null;
  event: EventEnvelope;
  /** Commit the caller's transaction with the statement, in the same round trip: nothing is left to write after it. */
  commit: boolean;
}

export const PLACE_CAUSE: Record<ReferralState, PlaceCause> = { credited: 'referral_credited', pending: 'referral_held', withheld: 'referral_withheld' };

/**
 * The statement behind join. Every write reads `line`, so that each row it locks is locked after the
 * counter, as everywhere else (a team's decision holds the counter, then the referral's row).
 * line_after_number reads the waiting entries and the places in a snapshot taken after the number:
 * this statement's own snapshot is older than the commits it waited for.
 */
export const JOIN_LINE = `
  WITH number AS (
    INSERT INTO line_counters AS c (product_id, mode, last_seq) VALUES ($2, $3, 1)
    ON CONFLICT (product_id, mode) DO UPDATE SET last_seq = c.last_seq + 1 RETURNING last_seq
  ), line AS (
    SELECT n.last_seq AS seq, l.waiting, l.places FROM number n, LATERAL line_after_number($2, $3, n.last_seq) l
  ), entry AS (
    UPDATE entries e SET state = 'confirmed', confirmed_at = $4, confirmation_seq = line.seq,
      line_key = line.seq - line.places * e.referrals - e.moved_up, referral_code = $5,
      referred_by = CASE WHEN $6 THEN e.referred_by END
    FROM line WHERE e.id = $1 RETURNING e.id
  ), joined AS (
    INSERT INTO place_history (entry_id, at, cause, place) SELECT entry.id, $4, 'joined', line.waiting + 1 FROM entry, line
  ), referral AS (
    UPDATE referrals r SET state = $8, reasons = $9, confirmed_at = $4, network = $10, credit_at = $11, credit_after = $12, decided_at = $4
    FROM line WHERE r.id = $7 RETURNING r.referrer_id
  ), credited AS (
    UPDATE entries e SET referrals = e.referrals + 1, line_key = e.line_key - line.places FROM referral, line, products p
    WHERE $13 AND e.id = referral.referrer_id AND p.id = e.product_id
    RETURNING e.id, e.referrals, e.product_id AS "productId", e.mode, p.milestones
  ), referrer_history AS (
    INSERT INTO place_history (entry_id, at, cause, places, referral_id, reasons)
    SELECT referral.referrer_id, $4, $14, CASE WHEN $13 THEN line.places ELSE 0 END, $7, $9 FROM referral, line
  ), event AS (
    INSERT INTO events (id, product_id, mode, type, created_at) SELECT $15, $2, $3, $16, $4 FROM line
  ), fan_out AS (
    INSERT INTO outbox (queue, name, data, created_at, body) SELECT $18, 'fan-out', jsonb_build_object('eventId', $15::text), $4, $17 FROM line
  ), day AS (
    INSERT INTO daily_event_counts (product_id, mode, day, type, count) SELECT $2, $3, ($4::timestamptz AT TIME ZONE 'UTC')::date, $16, 1 FROM line
    ON CONFLICT (product_id, mode, day, type, stripe) DO UPDATE SET count = daily_event_counts.count + 1
  )
  SELECT (SELECT to_jsonb(credited) FROM credited) AS credited`;
