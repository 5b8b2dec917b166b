import { MigrationInterface, QueryRunner } from 'typeorm';
import { applyEntryCountChanges } from './1763884800000-counter-stripes';

/**
 * apply_entry_count_changes runs at every commit that changed entries. Its two statements on
 * line_buckets matter only when a confirmed entry came or went (only those have a bucket), but they ran
 * at every commit, and the DELETE was planned anew each time (its generic plan is costed above a
 * custom one, so plpgsql never keeps it): some 70 µs of PostgreSQL per sign-up. They now run only when
 * a change has a bucket; the counts themselves are added as before.
 */
export class BucketsWhenMoved1764201600000 implements MigrationInterface {
  name = 'BucketsWhenMoved1764201600000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE OR REPLACE FUNCTION apply_entry_count_changes() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        changes entry_count_changes[];
        moved boolean;
      BEGIN
        WITH taken AS (DELETE FROM entry_count_changes WHERE tx = pg_current_xact_id() RETURNING *)
        SELECT array_agg(taken), bool_or(taken.bucket IS NOT NULL) INTO changes, moved FROM taken;
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
        ON CONFLICT (product_id, mode, stripe) DO UPDATE SET pending = counts.pending + excluded.pending,
          confirmed = counts.confirmed + excluded.confirmed, invited = counts.invited + excluded.invited,
          redeemed = counts.redeemed + excluded.redeemed;
        IF NOT moved THEN
          RETURN NULL;
        END IF;
        INSERT INTO line_buckets AS buckets (product_id, mode, bucket, waiting)
          SELECT product_id, mode, bucket, sum(delta) FROM unnest(changes)
          WHERE bucket IS NOT NULL AND product_id IN (SELECT id FROM products)
          GROUP BY 1, 2, 3 HAVING sum(delta) <> 0 ORDER BY 1, 2, 3
        ON CONFLICT (product_id, mode, bucket) DO UPDATE SET waiting = buckets.waiting + excluded.waiting;
        DELETE FROM line_buckets AS buckets USING unnest(changes) AS changed
          WHERE buckets.product_id = changed.product_id AND buckets.mode = changed.mode AND buckets.bucket = changed.bucket
            AND buckets.waiting = 0;
        RETURN NULL;
      END $$;
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(applyEntryCountChanges('(product_id, mode, stripe)'));
  }
}
