import { MigrationInterface, QueryRunner } from 'typeorm';

export class MailTemplates1764018000000 implements MigrationInterface {
  name = 'MailTemplates1764018000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      -- A product's own text for one kind of mail, in one language or (locale NULL) in every language
      -- that has no variant of its own. Validated before it is saved (libs/shared/src/templates).
      CREATE TABLE mail_templates (
        id text PRIMARY KEY,
        product_id text NOT NULL REFERENCES products (id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('confirmation', 'invitation', 'reminder')),
        locale text CHECK (locale IN ('en', 'de', 'fr', 'es')),
        subject text NOT NULL,
        text text NOT NULL,
        html text NOT NULL,
        updated_at timestamptz(3) NOT NULL
      );
      -- One per product, kind and locale, the one for every language included (NULLs are not distinct here).
      CREATE UNIQUE INDEX mail_templates_one_per_locale ON mail_templates (product_id, kind, locale) NULLS NOT DISTINCT;
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE mail_templates`);
  }
}
