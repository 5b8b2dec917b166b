import { MigrationInterface, QueryRunner } from 'typeorm';

export class Releases1764007200000 implements MigrationInterface {
  name = 'Releases1764007200000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      -- At most this many entries of a mode invited and not redeemed (with a code not expired); none by default.
      ALTER TABLE products ADD COLUMN capacity integer;

      -- "Invite count every pattern in time_zone": the source of truth for the BullMQ job schedulers.
      -- schedule_from: when the schedule was last set or resumed; ticks before it are not owed.
      CREATE TABLE releases (
        id text PRIMARY KEY,
        product_id text NOT NULL REFERENCES products (id) ON DELETE CASCADE,
        mode text NOT NULL,
        count integer NOT NULL,
        pattern text NOT NULL,
        time_zone text NOT NULL,
        paused boolean NOT NULL DEFAULT false,
        schedule_from timestamptz(3) NOT NULL,
        created_at timestamptz(3) NOT NULL
      );
      CREATE INDEX releases_of_product ON releases (product_id, mode, created_at);

      -- Each run of a release. A scheduled run is claimed by inserting its row before anyone is
      -- invited: the key on the tick's wall-clock time in the release's zone lets one run through per
      -- tick, whoever fires it (a replica, a reconcile after Redis lost its data) and however often
      -- the zone's clock shows that time (the doubled hour in autumn). Run now has no tick.
      CREATE TABLE release_runs (
        id text PRIMARY KEY,
        release_id text NOT NULL REFERENCES releases (id) ON DELETE CASCADE,
        tick_at timestamptz(3),
        tick_local timestamp(3),
        started_at timestamptz(3) NOT NULL,
        finished_at timestamptz(3),
        asked integer NOT NULL,
        invited integer NOT NULL DEFAULT 0,
        failed integer NOT NULL DEFAULT 0,
        skipped_for_capacity integer NOT NULL DEFAULT 0,
        failed_entry_ids text[] NOT NULL DEFAULT '{}',
        error text
      );
      CREATE UNIQUE INDEX release_runs_tick ON release_runs (release_id, tick_local);
      CREATE INDEX release_runs_newest ON release_runs (release_id, started_at DESC);

      -- The capacity count reads the entries being invited right now without a scan of the line, and
      -- whether an invited entry's code still works from the index alone.
      CREATE INDEX entries_invite_holds ON entries (product_id, mode) WHERE invite_held_until IS NOT NULL;
      CREATE INDEX invite_codes_entry_expiry ON invite_codes (entry_id, expires_at);
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      DROP INDEX invite_codes_entry_expiry;
      DROP INDEX entries_invite_holds;
      DROP TABLE release_runs;
      DROP TABLE releases;
      ALTER TABLE products DROP COLUMN capacity;
    `);
  }
}
