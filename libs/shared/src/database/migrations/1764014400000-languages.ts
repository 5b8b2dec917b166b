import { MigrationInterface, QueryRunner } from 'typeorm';

export class Languages1764014400000 implements MigrationInterface {
  name = 'Languages1764014400000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      -- The language of an entry's pages and mails, and a product's default for a sign-up that names
      -- none. A constant default is kept in the catalogue since PostgreSQL 11: no table rewrite, no long lock.
      ALTER TABLE entries ADD COLUMN locale text NOT NULL DEFAULT 'en';
      ALTER TABLE products ADD COLUMN default_locale text NOT NULL DEFAULT 'en';
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE products DROP COLUMN default_locale;
      ALTER TABLE entries DROP COLUMN locale;
    `);
  }
}
