import { MigrationInterface, QueryRunner } from 'typeorm';

export class Imports1764000000000 implements MigrationInterface {
  name = 'Imports1764000000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      -- The mailboxes (SHA-256 of canonicalEmail) whose entry was deleted or unsubscribed in a product and
      -- mode: an import never brings them back. A sign-up is not checked against it.
      CREATE TABLE suppressed_addresses (
        product_id text NOT NULL REFERENCES products (id) ON DELETE CASCADE,
        mode text NOT NULL CHECK (mode IN ('live', 'test')),
        email_hash bytea NOT NULL,
        suppressed_at timestamptz(3) NOT NULL,
        PRIMARY KEY (product_id, mode, email_hash)
      );
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE suppressed_addresses;`);
  }
}
