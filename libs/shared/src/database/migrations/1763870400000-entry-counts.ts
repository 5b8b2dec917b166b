import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * note_entry_count_changes; SignupsCountThemselves1795907200000 declares `counted` and keeps the inserted
 * rows other than it (`insertedKept`).
 */
export const noteEntryCountChanges = (declare: string, insertedKept: string) => `
  CREATE OR REPLACE FUNCTION note_entry_count_changes() RETURNS trigger LANGUAGE plpgsql AS $$
  ${declare}
  BEGIN
    IF TG_OP = 'INSERT' THEN
      ${insertedKept}
      INSERT INTO entry_count_changes (product_id, mode, state, bucket, delta)
        SELECT product_id, mode, state, CASE WHEN state = 'confirmed' THEN line_bucket(line_key) END, count(*)
        FROM new_entries ${insertedKept && 'WHERE id IS DISTINCT FROM counted'} GROUP BY 1, 2, 3, 4;
    ELSIF TG_OP = 'DELETE' THEN
      INSERT INTO entry_count_changes (product_id, mode, state, bucket, delta)
        SELECT product_id, mode, state, CASE WHEN state = 'confirmed' THEN line_bucket(line_key) END, -count(*)
        FROM old_entries GROUP BY 1, 2, 3, 4;
    ELSE
      INSERT INTO entry_count_changes (product_id, mode, state, bucket, delta)
        SELECT product_id, mode, state, CASE WHEN state = 'confirmed' THEN line_bucket(line_key) END, sum(delta)
        FROM (SELECT product_id, mode, state, line_key, 1 AS delta FROM new_entries
              UNION ALL SELECT product_id, mode, state, line_key, -1 FROM old_entries) AS changed
        GROUP BY 1, 2, 3, 4 HAVING sum(delta) <> 0;
    END IF;
    RETURN NULL;
  END $$;`;

export class EntryCounts1763870400000 implements MigrationInterface {
  name = 'EntryCounts1763870400000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      -- Entries per product, mode and state: the overview and the line's length read one row instead of
      -- counting up to a million index entries.
      CREATE TABLE entry_counts (
        product_id text NOT NULL REFERENCES products (id) ON DELETE CASCADE,
        mode text NOT NULL,
        pending bigint NOT NULL,
        confirmed bigint NOT NULL,
        invited bigint NOT NULL,
        redeemed bigint NOT NULL,
        PRIMARY KEY (product_id, mode)
      );

      -- Waiting entries per product, mode and stretch of 1,024 line keys (line_bucket; LINE_BUCKET_KEYS
      -- in libs/shared/src/domain/line.ts): a place in line adds up the stretches before its entry's and
      -- counts in its own, some thousand rows at most for a million waiting. Empty stretches have no row.
      CREATE TABLE line_buckets (
        product_id text NOT NULL REFERENCES products (id) ON DELETE CASCADE,
        mode text NOT NULL,
        bucket bigint NOT NULL,
        waiting bigint NOT NULL,
        PRIMARY KEY (product_id, mode, bucket)
      );
      CREATE FUNCTION line_bucket(line_key bigint) RETURNS bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE
        AS $$ SELECT floor(line_key / 1024.0)::bigint $$;

      -- Both are kept for every change of entries, whoever makes it (the services, the purge, a product's
      -- deletion, a test's seed), in two steps. Each statement on entries notes what it changed, summed
      -- per product, mode, state and stretch (its rows as they are after it, minus as they were before:
      -- an update of other columns nets to nothing), in entry_count_changes. At the commit (a deferred
      -- constraint trigger, after every other lock the transaction takes) the transaction's notes are
      -- added to the counts at once: one update per row touched, however many entries changed, and the
      -- entry_counts rows first, in one order, before any of their stretches; so concurrent commits of
      -- one product and mode take turns there for the moment of their commit and cannot deadlock.
      CREATE TABLE entry_count_changes (
        tx xid8 NOT NULL DEFAULT pg_current_xact_id(),
        product_id text NOT NULL,
        mode text NOT NULL,
        state text NOT NULL,
        bucket bigint,
        delta bigint NOT NULL
      );
      CREATE INDEX entry_count_changes_tx ON entry_count_changes (tx);

      ${noteEntryCountChanges('', '')}
      CREATE TRIGGER entries_inserted AFTER INSERT ON entries REFERENCING NEW TABLE AS new_entries
        FOR EACH STATEMENT EXECUTE FUNCTION note_entry_count_changes();
      CREATE TRIGGER entries_updated AFTER UPDATE ON entries REFERENCING OLD TABLE AS old_entries NEW TABLE AS new_entries
        FOR EACH STATEMENT EXECUTE FUNCTION note_entry_count_changes();
      CREATE TRIGGER entries_deleted AFTER DELETE ON entries REFERENCING OLD TABLE AS old_entries
        FOR EACH STATEMENT EXECUTE FUNCTION note_entry_count_changes();

      -- Runs once per note, at the commit; the first takes all of the transaction's notes, the rest find none.
      CREATE FUNCTION apply_entry_count_changes() RETURNS trigger LANGUAGE plpgsql AS $$
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
        ON CONFLICT (product_id, mode) DO UPDATE SET pending = counts.pending + excluded.pending,
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
      END $$;
      CREATE CONSTRAINT TRIGGER entry_count_changes_applied AFTER INSERT ON entry_count_changes
        DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION apply_entry_count_changes();

      -- The triggers hold off every change of entries until this commits, so the counts start exact.
      INSERT INTO entry_counts (product_id, mode, pending, confirmed, invited, redeemed)
        SELECT product_id, mode, count(*) FILTER (WHERE state = 'pending'), count(*) FILTER (WHERE state = 'confirmed'),
               count(*) FILTER (WHERE state = 'invited'), count(*) FILTER (WHERE state = 'redeemed')
        FROM entries GROUP BY product_id, mode;
      INSERT INTO line_buckets (product_id, mode, bucket, waiting)
        SELECT product_id, mode, line_bucket(line_key), count(*) FROM entries WHERE state = 'confirmed' GROUP BY 1, 2, 3;
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      DROP TRIGGER entries_deleted ON entries;
      DROP TRIGGER entries_updated ON entries;
      DROP TRIGGER entries_inserted ON entries;
      DROP TABLE entry_count_changes, line_buckets, entry_counts;
      DROP FUNCTION apply_entry_count_changes(), note_entry_count_changes();
      DROP FUNCTION line_bucket(bigint);
    `);
  }
}
