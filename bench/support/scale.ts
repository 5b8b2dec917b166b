import type { EntryState, Mode } from '@app/shared';
import type { DataSource } from 'typeorm';

export interface ScaleOptions {
  productId: string;
  mode: Mode;
  count: number;
  /** Each state's share of the entries; the default is a list some months into its launch. */
  states?: Record<EntryState, number>;
  /** Ids, addresses and codes are made from it; unique per database. Default: 's' and the count. */
  prefix?: string;
}

export interface ScaleEntries {
  /** The id of entry i (1 … count): the oldest is 1. */
  id(i: number): string;
  email(i: number): string;
  /** The referral code of entry i, which its referral link carries once it confirmed. */
  referralCode(i: number): string;
  /** The invite code of an entry by its id, which works while the entry is invited (each invited one has one). */
  inviteCode(id: string): string;
}

const DEFAULT_STATES: Record<EntryState, number> = { pending: 0.2, confirmed: 0.5, invited: 0.2, redeemed: 0.1 };

// Each statement below works out an entry's state and referral from its number alone, by these
// expressions, so that the entries, their referrals and their history agree without reading each other.
// Parameters shared by every statement: $1 product, $2 mode, $3 prefix, $4 count, $5 pending share, $6 digits.

/** Whether entry number x is pending: a low-discrepancy sequence (golden ratio) spreads them evenly but not periodically. */
const pending = (x: string) => `((${x}) * 0.6180339887) % 1 < $5::float8`;
/** When entry number x signed up: over the last 30 days, the oldest first (now() is the transaction's). */
const signedUp = (x: string) => `now() - interval '30 days' * (1 - (${x})::float / $4::int) - interval '4 hours'`;
/**
 * The number of the entry whose link entry x came through, or null. Referrers are the multiples of 7:
 * each brings the entries 3 and 5 after it, one in three the one after it too, one in eleven two more;
 * and the multiples of 3,500 a great many (one in five of the entries 6 after a multiple of 7 until the
 * next one), so that referral counts vary and the leaderboard has a real order. Only a confirmed
 * referrer has a link: the statements check that too.
 */
const referrerOf = (x: string) => `NULLIF(CASE (${x}) % 7 WHEN 3 THEN (${x}) - 3 WHEN 5 THEN (${x}) - 5
    WHEN 1 THEN CASE WHEN (${x}) / 7 % 3 = 0 THEN (${x}) - 1 END
    WHEN 2 THEN CASE WHEN (${x}) / 7 % 11 = 0 THEN (${x}) - 2 END
    WHEN 4 THEN CASE WHEN (${x}) / 7 % 11 = 0 THEN (${x}) - 4 END
    WHEN 6 THEN CASE WHEN (${x}) / 7 % 5 = 0 THEN (${x}) - (${x}) % 3500 END END, 0)`;
/** One in ten confirmed referrals is withheld (network_velocity), as strict protection would: still being checked. */
const withheld = (x: string) => `(${x}) % 10 = 9`;
const entryId = (x: string) => `'ent_' || $3 || '_' || lpad((${x})::text, $6, '0')`;

/**
 * `count` entries of one product and mode, written by a few SQL statements (a million in about a
 * minute, most of it index building) as months of a launch with referral protection would leave them:
 * signed up over the last 30 days, the oldest first; unconfirmed ones scattered through the list; of
 * the confirmed, the oldest invited (some of them redeemed, each invited one with a working invite code)
 * and the rest waiting in line; about a third signed up through a referral link (referrerOf), each with
 * its referral: pending until it confirms, then credited, or withheld for one in ten (which clears its
 * referred_by, as a withheld confirmation does); each referrer's referrals and line key count only the
 * credited ones; one in a thousand moved up by 50 places; the history of every place change (joined,
 * each referral credited or withheld on its referrer, moved up); the line counter and the day counts of
 * the overview (the entries' triggers keep their counts by state and the line's stretches). The
 * product's line must be empty; its referral places are read from the products table.
 */
export async function seedEntries(db: DataSource, options: ScaleOptions): Promise<ScaleEntries> {
  const { productId, mode, count } = options;
  const prefix = options.prefix ?? `s${count}`;
  const states = options.states ?? DEFAULT_STATES;
  const done = states.invited + states.redeemed;
  const digits = String(count).length;
  const number = (i: number) => String(i).padStart(digits, '0');
  const shared = [productId, mode, prefix, count, states.pending, digits];
  await db.transaction(async (manager) => {
    await manager.query(
      `INSERT INTO entries (id, product_id, mode, email, state, created_at, confirmed_at, invited_at, redeemed_at,
                            referral_code, referrals, referred_by, confirmation_seq, moved_up, line_key)
       SELECT ${entryId('i')}, $1, $2, $3 || '-' || n || '@example.com', state, created,
              CASE WHEN state <> 'pending' THEN created + interval '1 hour' END,
              CASE WHEN state IN ('invited', 'redeemed') THEN created + interval '2 hours' END,
              CASE WHEN state = 'redeemed' THEN created + interval '3 hours' END,
              CASE WHEN state <> 'pending' THEN $3 || n END, referrals,
              CASE WHEN kept THEN ${entryId('referrer')} END,
              CASE WHEN state <> 'pending' THEN i END, moved_up,
              CASE WHEN state <> 'pending' THEN i - places * referrals - moved_up END
       FROM generate_series(1, $4::int) AS i,
            -- Numbers of equal length sort as they count, so every index takes the rows in its own order.
            LATERAL (SELECT lpad(i::text, $6, '0') AS n) AS number,
            (SELECT referral_places AS places FROM products WHERE id = $1) AS product,
            LATERAL (SELECT CASE WHEN ${pending('i')} THEN 'pending'
                                 WHEN i > $4::int * $7::float8 THEN 'confirmed'
                                 WHEN (i * 0.7548776662) % 1 < $8::float8 THEN 'redeemed'
                                 ELSE 'invited' END AS state,
                            ${signedUp('i')} AS created,
                            ${referrerOf('i')} AS referrer) AS shape,
            LATERAL (SELECT CASE WHEN i % 1000 = 500 AND shape.state = 'confirmed' THEN 50 ELSE 0 END AS moved_up,
                            referrer IS NOT NULL AND NOT ${pending('referrer')} AND (shape.state = 'pending' OR NOT ${withheld('i')}) AS kept,
                            -- Its credited referrals: the confirmed, not withheld entries that came through its link.
                            CASE WHEN i % 7 = 0 AND shape.state <> 'pending' THEN
                              (SELECT count(*)::int FROM (SELECT i + d AS j FROM generate_series(1, 6) AS d
                                                          UNION ALL SELECT i + d FROM generate_series(13, 3499, 7) AS d WHERE i % 3500 = 0) AS later
                               WHERE j <= $4::int AND ${referrerOf('j')} = i AND NOT ${pending('j')} AND NOT ${withheld('j')})
                            ELSE 0 END AS referrals) AS referral`,
      [...shared, done / (1 - states.pending), done ? states.redeemed / done : 0],
    );
    await manager.query(
      `INSERT INTO referrals (id, product_id, mode, referrer_id, referred_id, state, reasons, created_at, confirmed_at, network, decided_at)
       SELECT 'rfl_' || $3 || '_' || lpad(j::text, $6, '0'), $1, $2, ${entryId('referrer')}, ${entryId('j')}, state,
              CASE state WHEN 'pending' THEN '{not_confirmed}' WHEN 'withheld' THEN '{network_velocity}' ELSE '{}' END::text[],
              created, confirmed, CASE WHEN confirmed IS NOT NULL THEN '198.51.100.0/24' END, confirmed
       FROM generate_series(1, $4::int) AS j,
            LATERAL (SELECT ${referrerOf('j')} AS referrer, ${signedUp('j')} AS created) AS link,
            LATERAL (SELECT CASE WHEN ${pending('j')} THEN 'pending' WHEN ${withheld('j')} THEN 'withheld' ELSE 'credited' END AS state) AS credit,
            LATERAL (SELECT CASE WHEN state <> 'pending' THEN created + interval '1 hour' END AS confirmed) AS confirmation
       WHERE referrer IS NOT NULL AND NOT ${pending('referrer')}`,
      shared,
    );
    // In the order the service writes them for each entry: it joined, then its referrals were decided.
    await manager.query(
      `INSERT INTO place_history (entry_id, at, cause, places, place, referral_id, reasons)
       SELECT id, confirmed_at, 'joined', 0, confirmation_seq, NULL, '{}'::text[] FROM entries
       WHERE product_id = $1 AND mode = $2 AND confirmation_seq IS NOT NULL
       UNION ALL
       SELECT referrer_id, confirmed_at, CASE WHEN state = 'credited' THEN 'referral_credited' ELSE 'referral_withheld' END,
              CASE WHEN state = 'credited' THEN places ELSE 0 END, NULL, id, reasons
       FROM referrals, (SELECT referral_places AS places FROM products WHERE id = $1) AS product
       WHERE product_id = $1 AND mode = $2 AND confirmed_at IS NOT NULL
       UNION ALL
       SELECT id, confirmed_at + interval '1 day', 'moved_up', moved_up, NULL, NULL, '{}' FROM entries
       WHERE product_id = $1 AND mode = $2 AND moved_up > 0`,
      [productId, mode],
    );
    await manager.query(
      `INSERT INTO invite_codes (hash, entry_id, expires_at, created_at, recorded)
       SELECT sha256(convert_to('code-' || id, 'UTF8')), id, invited_at + interval '60 days', invited_at, true
       FROM entries WHERE product_id = $1 AND mode = $2 AND state = 'invited'`,
      [productId, mode],
    );
    await manager.query(
      `INSERT INTO daily_event_counts (product_id, mode, day, type, count)
       SELECT $1, $2, (at AT TIME ZONE 'UTC')::date, type, count(*)
       FROM entries, LATERAL (VALUES ('entry.created', created_at), ('entry.confirmed', confirmed_at),
                                     ('entry.invited', invited_at), ('entry.redeemed', redeemed_at)) AS happened(type, at)
       WHERE product_id = $1 AND mode = $2 AND at IS NOT NULL GROUP BY 3, 4
       ON CONFLICT (product_id, mode, day, type, stripe) DO UPDATE SET count = daily_event_counts.count + excluded.count`,
      [productId, mode],
    );
    await manager.query(
      `INSERT INTO line_counters (product_id, mode, last_seq) VALUES ($1, $2, $3)
       ON CONFLICT (product_id, mode) DO UPDATE SET last_seq = greatest(line_counters.last_seq, $3)`,
      [productId, mode, count],
    );
  });
  // As autovacuum would leave them: statistics and a visibility map, so index-only scans stay index-only.
  await db.query('VACUUM (ANALYZE) entries, invite_codes, line_buckets, referrals, place_history');
  return {
    id: (i) => `ent_${prefix}_${number(i)}`,
    email: (i) => `${prefix}-${number(i)}@example.com`,
    referralCode: (i) => `${prefix}${number(i)}`,
    inviteCode: (id) => `code-${id}`,
  };
}
