import { MigrationInterface, QueryRunner } from 'typeorm';

export class QuestionsAndAttribution1764021600000 implements MigrationInterface {
  name = 'QuestionsAndAttribution1764021600000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      -- A product's sign-up questions, in the order they are asked (none by default).
      ALTER TABLE products ADD COLUMN questions jsonb NOT NULL DEFAULT '[]';

      -- A sign-up's answers and where it came from, beside the entry rather than in it: the entries'
      -- rows stay narrow for the line's and the lists' hot reads. A row only when there is something in it.
      CREATE TABLE entry_details (
        entry_id text PRIMARY KEY REFERENCES entries (id) ON DELETE CASCADE,
        answers jsonb,
        attribution jsonb
      );
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      DROP TABLE entry_details;
      ALTER TABLE products DROP COLUMN questions;
    `);
  }
}
