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
  /** The invite code of an entry by its id, which works while the entry is invited (each invited one has one). */
  inviteCode(id: string): string;
}

const DEFAULT_STATES: Record<EntryState, number> = { pending: 0.2, confirmed: 0.5, invited: 0.2, redeemed: 0.1 };

/**
 * `count` entries of one product and mode, written by a few SQL statements (a million in well under a
 * minute, most of it index building) as months of a launch would leave them: signed up over the last
 * 30 days, the oldest first; unconfirmed ones scattered through the list; of the confirmed, the oldest
 * invited (some of them redeemed, each invited one with a working invite code) and the rest waiting in
 * line; one in seven with two referrals (from entries referred_by it), one in a thousand moved up by
 * 50 places, so that line keys and ties look like the real thing; the line counter and the day counts of
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
  await db.transaction(async (manager) => {
    await manager.query(
      `INSERT INTO entries (id, product_id, mode, email, state, created_at, confirmed_at, invited_at, redeemed_at,
                            referral_code, referrals, referred_by, confirmation_seq, moved_up, line_key)
       SELECT 'ent_' || $3 || '_' || n, $1, $2, $3 || '-' || n || '@example.com', state, created,
              CASE WHEN state <> 'pending' THEN created + interval '1 hour' END,
              CASE WHEN state IN ('invited', 'redeemed') THEN created + interval '2 hours' END,
              CASE WHEN state = 'redeemed' THEN created + interval '3 hours' END,
              CASE WHEN state <> 'pending' THEN $3 || n END, referrals,
              CASE WHEN i % 7 IN (3, 5) AND i > 7 THEN 'ent_' || $3 || '_' || lpad((i - i % 7)::text, $8, '0') END,
              CASE WHEN state <> 'pending' THEN i END, moved_up,
              CASE WHEN state <> 'pending' THEN i - places * referrals - moved_up END
       FROM generate_series(1, $4::int) AS i,
            -- Numbers of equal length sort as they count, so every index takes the rows in its own order.
            LATERAL (SELECT lpad(i::text, $8, '0') AS n) AS number,
            (SELECT referral_places AS places FROM products WHERE id = $1) AS product,
            -- Two low-discrepancy sequences (golden ratio) spread the states evenly but not periodically.
            LATERAL (SELECT CASE WHEN (i * 0.6180339887) % 1 < $5::float8 THEN 'pending'
                                 WHEN i > $4::int * $6::float8 THEN 'confirmed'
                                 WHEN (i * 0.7548776662) % 1 < $7::float8 THEN 'redeemed'
                                 ELSE 'invited' END AS state,
                            now() - interval '30 days' * (1 - i::float / $4::int) - interval '4 hours' AS created,
                            CASE WHEN i % 7 = 0 THEN 2 ELSE 0 END AS referrals) AS shape,
            LATERAL (SELECT CASE WHEN i % 1000 = 500 AND shape.state = 'confirmed' THEN 50 ELSE 0 END AS moved_up) AS moves`,
      [productId, mode, prefix, count, states.pending, done / (1 - states.pending), states.redeemed / done, digits],
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
  await db.query('VACUUM (ANALYZE) entries, invite_codes, line_buckets');
  return {
    id: (i) => `ent_${prefix}_${number(i)}`,
    email: (i) => `${prefix}-${number(i)}@example.com`,
    inviteCode: (id) => `code-${id}`,
  };
}
