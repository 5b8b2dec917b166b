import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * apply_entry_count_changes of EntryCounts1763870400000, its upsert of entry_counts arbitrated by
 * `countsKey`: the one difference between before and after the stripes.
 */
export const applyEntryCountChanges = (countsKey: string) => `
  CREATE OR REPLACE FUNCTION apply_entry_count_changes() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE
    changes entry_count_changes[];
  BEGIN
    WITH taken AS (DELETE FROM entry_count_changes WHERE tx = pg_current_xact_id() RETURNING *)
    SELECT array_agg(taken) INTO changes FROM taken;
    IF changes IS NULL THEN
      RETURN NULL;
    END IF;
    -- A deleted product's rows went with it: nothing to add to.
    INSERT INTO entry_counts AS counts (product_id, mode, pending, confirmed, invited, redeemed)
      SELECT product_id, mode, COALESCE(sum(delta) FILTER (WHERE state = 'pending'), 0),
             COALESCE(sum(delta) FILTER (WHERE state = 'confirmed'), 0), COALESCE(sum(delta) FILTER (WHERE state = 'invited'), 0),
             COALESCE(sum(delta) FILTER (WHERE state = 'redeemed'), 0)
      FROM unnest(changes) WHERE product_id IN (SELECT id FROM products)
      GROUP BY product_id, mode ORDER BY product_id, mode
    ON CONFLICT ${countsKey} DO UPDATE SET pending = counts.pending + excluded.pending,
      confirmed = counts.confirmed + excluded.confirmed, invited = counts.invited + excluded.invited,
      redeemed = counts.redeemed + excluded.redeemed;
    INSERT INTO line_buckets AS buckets (product_id, mode, bucket, waiting)
      SELECT product_id, mode, bucket, sum(delta) FROM unnest(changes)
      WHERE bucket IS NOT NULL AND product_id IN (SELECT id FROM products)
      GROUP BY 1, 2, 3 HAVING sum(delta) <> 0 ORDER BY 1, 2, 3
    ON CONFLICT (product_id, mode, bucket) DO UPDATE SET waiting = buckets.waiting + excluded.waiting;
    DELETE FROM line_buckets AS buckets USING unnest(changes) AS changed
      WHERE buckets.product_id = changed.product_id AND buckets.mode = changed.mode AND buckets.bucket = changed.bucket
        AND buckets.waiting = 0;
    RETURN NULL;
  END $$;`;

export class CounterStripes1763884800000 implements MigrationInterface {
  name = 'CounterStripes1763884800000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      -- Every sign-up of a product adds to its entry_counts row and its day's daily_event_counts row, and
      -- holds their locks until its commit (the WAL flush included): the product's sign-ups took turns
      -- there. Each counter is now kept in stripes, and a transaction adds to the stripe of its database
      -- connection (its backend's pid modulo 16): concurrent transactions, being on different
      -- connections, rarely share a stripe, and one transaction takes every counter row in one stripe,
      -- in the order it did before, so commits still cannot deadlock. A count is the sum of its stripes.
      CREATE FUNCTION counter_stripe() RETURNS smallint LANGUAGE sql STABLE
        AS $$ SELECT (pg_backend_pid() % 16)::smallint $$;

      ALTER TABLE entry_counts ADD COLUMN stripe smallint NOT NULL DEFAULT 0;
      ALTER TABLE entry_counts ALTER COLUMN stripe SET DEFAULT counter_stripe(),
        DROP CONSTRAINT entry_counts_pkey, ADD PRIMARY KEY (product_id, mode, stripe);
      ALTER TABLE daily_event_counts ADD COLUMN stripe smallint NOT NULL DEFAULT 0;
      ALTER TABLE daily_event_counts ALTER COLUMN stripe SET DEFAULT counter_stripe(),
        DROP CONSTRAINT daily_event_counts_pkey, ADD PRIMARY KEY (product_id, mode, day, type, stripe);
      ${applyEntryCountChanges('(product_id, mode, stripe)')}
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      ${applyEntryCountChanges('(product_id, mode)')}
      CREATE TEMPORARY TABLE folded_entry_counts ON COMMIT DROP AS
        SELECT product_id, mode, sum(pending) AS pending, sum(confirmed) AS confirmed, sum(invited) AS invited, sum(redeemed) AS redeemed
        FROM entry_counts GROUP BY 1, 2;
      CREATE TEMPORARY TABLE folded_daily_event_counts ON COMMIT DROP AS
        SELECT product_id, mode, day, type, sum(count) AS count FROM daily_event_counts GROUP BY 1, 2, 3, 4;
      TRUNCATE entry_counts, daily_event_counts;
      ALTER TABLE entry_counts DROP COLUMN stripe, ADD PRIMARY KEY (product_id, mode);
      ALTER TABLE daily_event_counts DROP COLUMN stripe, ADD PRIMARY KEY (product_id, mode, day, type);
      INSERT INTO entry_counts SELECT * FROM folded_entry_counts;
      INSERT INTO daily_event_counts SELECT * FROM folded_daily_event_counts;
      DROP FUNCTION counter_stripe();
    `);
  }
}
