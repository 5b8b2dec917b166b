import { MigrationInterface, QueryRunner } from 'typeorm';

export class Invitations1763812800000 implements MigrationInterface {
  name = 'Invitations1763812800000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      -- An invitation being sent holds the entry until this time, so that no other request takes it.
      ALTER TABLE entries ADD COLUMN invite_held_until timestamptz(3);
      -- The request whose mail made the entry invited or re-invited last (the API reads its outcome here).
      ALTER TABLE entries ADD COLUMN invite_request text;

      CREATE TABLE invite_codes (
        hash bytea PRIMARY KEY,
        entry_id text NOT NULL REFERENCES entries (id) ON DELETE CASCADE,
        expires_at timestamptz(3) NOT NULL,
        created_at timestamptz(3) NOT NULL
      );
      CREATE INDEX invite_codes_entry ON invite_codes (entry_id);

      CREATE TABLE idempotency_keys (
        product_id text NOT NULL REFERENCES products (id) ON DELETE CASCADE,
        mode text NOT NULL,
        key text NOT NULL,
        fingerprint bytea NOT NULL,
        status int,
        body text,
        created_at timestamptz(3) NOT NULL,
        PRIMARY KEY (product_id, mode, key)
      );
      CREATE INDEX idempotency_keys_age ON idempotency_keys (created_at);
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      DROP TABLE idempotency_keys, invite_codes;
      ALTER TABLE entries DROP COLUMN invite_request, DROP COLUMN invite_held_until;
    `);
  }
}
