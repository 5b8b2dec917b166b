import type { DataSource } from 'typeorm';
import type { Scope } from './invitations';

/**
 * `count` entries with a month of history, written straight into the tables: sign-ups over the last
 * 30 days, more each day, and by i mod 10 pending (0–1), waiting in line (2–6, every seventh with
 * two referrals), invited (7–8) or redeemed (9), each with the events and day counts it implies.
 * The scope's line must be empty.
 */
export async function seedHistory(db: DataSource, scope: Scope, count: number, prefix: string): Promise<void> {
  await db.query(
    `INSERT INTO entries (id, product_id, mode, email, state, created_at, confirmed_at, invited_at, redeemed_at,
                          referral_code, referrals, confirmation_seq, moved_up, line_key)
     SELECT 'ent_' || $3 || i, $1, $2, $3 || '-' || i || '@example.com', state, created,
            CASE WHEN state <> 'pending' THEN created + interval '1 hour' END,
            CASE WHEN state IN ('invited', 'redeemed') THEN created + interval '2 hours' END,
            CASE WHEN state = 'redeemed' THEN created + interval '3 hours' END,
            CASE WHEN state <> 'pending' THEN $3 || i END, referrals,
            CASE WHEN state <> 'pending' THEN i END, 0,
            CASE WHEN state <> 'pending' THEN i - referrals END
     FROM generate_series(1, $4::int) AS i,
          LATERAL (SELECT CASE WHEN i % 10 < 2 THEN 'pending' WHEN i % 10 < 7 THEN 'confirmed' WHEN i % 10 < 9 THEN 'invited' ELSE 'redeemed' END AS state,
                          now() - interval '30 days' * (1 - sqrt(i::float / $4::int)) - interval '4 hours' AS created,
                          CASE WHEN i % 7 = 0 AND i % 10 >= 2 THEN 2 ELSE 0 END AS referrals) AS shape`,
    [scope.productId, scope.mode, prefix, count],
  );
  await db.query(
    `INSERT INTO events (id, product_id, mode, type, created_at)
     SELECT 'evt_' || substr(type, 7) || '_' || e.id, e.product_id, e.mode, type, at
     FROM entries e, LATERAL (VALUES ('entry.created', e.created_at), ('entry.confirmed', e.confirmed_at),
                                     ('entry.invited', e.invited_at), ('entry.redeemed', e.redeemed_at)) AS happened(type, at)
     WHERE e.product_id = $1 AND e.mode = $2 AND e.id LIKE 'ent\\_' || $3 || '%' AND at IS NOT NULL`,
    [scope.productId, scope.mode, prefix],
  );
  await db.query(
    `INSERT INTO daily_event_counts (product_id, mode, day, type, count)
     SELECT product_id, mode, (created_at AT TIME ZONE 'UTC')::date, type, count(*) FROM events
     WHERE product_id = $1 AND mode = $2 AND id LIKE 'evt\_%\_ent\_' || $3 || '%' GROUP BY 1, 2, 3, 4
     ON CONFLICT (product_id, mode, day, type, stripe) DO UPDATE SET count = daily_event_counts.count + excluded.count`,
    [scope.productId, scope.mode, prefix],
  );
  await db.query(
    `INSERT INTO line_counters (product_id, mode, last_seq) VALUES ($1, $2, $3)
     ON CONFLICT (product_id, mode) DO UPDATE SET last_seq = greatest(line_counters.last_seq, $3)`,
    [scope.productId, scope.mode, count],
  );
  // As autovacuum would leave them: statistics and a visibility map, so index-only scans stay index-only.
  await db.query('VACUUM (ANALYZE) entries, events');
}
