import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A run names the request its entries are held and invited under, so that another api can take over a
 * run whose api died: it waits for that request's holds to end, counts whom it invited, and invites
 * the rest under a request of its own. The runs still going are found without reading every run.
 */
export class ReleaseRunRequests1764374400000 implements MigrationInterface {
  name = 'ReleaseRunRequests1764374400000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE release_runs ADD COLUMN request_id text;
      CREATE INDEX release_runs_unfinished ON release_runs (started_at) WHERE finished_at IS NULL;
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      DROP INDEX release_runs_unfinished;
      ALTER TABLE release_runs DROP COLUMN request_id;
    `);
  }
}
