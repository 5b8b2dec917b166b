import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Whom a release run invited, beside failed_entry_ids (whose mail failed): written by the statement
 * that records the run's counts, kept as long as the run's row. Runs from before have none listed.
 */
export class ReleaseRunEntries1764486000000 implements MigrationInterface {
  name = 'ReleaseRunEntries1764486000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE release_runs ADD COLUMN invited_entry_ids text[] NOT NULL DEFAULT '{}'`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE release_runs DROP COLUMN invited_entry_ids`);
  }
}
