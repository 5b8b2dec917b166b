import { MigrationInterface, QueryRunner } from 'typeorm';

export class Leaderboard1763906400000 implements MigrationInterface {
  name = 'Leaderboard1763906400000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      -- The public leaderboard, opt-in per mode (off keeps every rule of SPEC.md), and how many it shows.
      ALTER TABLE products
        ADD COLUMN leaderboard text NOT NULL DEFAULT 'off' CHECK (leaderboard IN ('off', 'test', 'live', 'both')),
        ADD COLUMN leaderboard_size integer NOT NULL DEFAULT 10 CHECK (leaderboard_size BETWEEN 1 AND 100);

      -- The leaderboard's read: the first rows of this index, however long the line. Only referrers are in it.
      CREATE INDEX entries_leaderboard ON entries (product_id, mode, referrals DESC, line_key, confirmation_seq) WHERE referrals > 0;
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      DROP INDEX entries_leaderboard;
      ALTER TABLE products DROP COLUMN leaderboard_size, DROP COLUMN leaderboard;
    `);
  }
}
