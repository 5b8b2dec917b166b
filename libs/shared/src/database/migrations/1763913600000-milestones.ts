import { MigrationInterface, QueryRunner } from 'typeorm';

export class Milestones1763913600000 implements MigrationInterface {
  name = 'Milestones1763913600000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      -- A product's milestone rewards (Milestone[], by referrals, at most 10); none by default.
      ALTER TABLE products ADD COLUMN milestones jsonb NOT NULL DEFAULT '[]';

      -- Each milestone an entry reached, as it was then, once: the key keeps a revoke and a new grant
      -- from reaching it (and emitting entry.milestone) twice.
      CREATE TABLE entry_milestones (
        entry_id text NOT NULL REFERENCES entries (id) ON DELETE CASCADE,
        referrals integer NOT NULL,
        product_id text NOT NULL,
        mode text NOT NULL,
        name text NOT NULL,
        places integer NOT NULL DEFAULT 0,
        message text,
        reached_at timestamptz(3) NOT NULL,
        PRIMARY KEY (entry_id, referrals)
      );
      CREATE INDEX entry_milestones_of_product ON entry_milestones (product_id, mode);
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      DROP TABLE entry_milestones;
      ALTER TABLE products DROP COLUMN milestones;
    `);
  }
}
