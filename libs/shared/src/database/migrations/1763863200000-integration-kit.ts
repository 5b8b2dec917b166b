import { MigrationInterface, QueryRunner } from 'typeorm';

export class IntegrationKit1763863200000 implements MigrationInterface {
  name = 'IntegrationKit1763863200000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      -- How deliveries to an endpoint are signed: ours (Service-Signature) or Standard Webhooks.
      ALTER TABLE webhook_endpoints ADD COLUMN signature_format text NOT NULL DEFAULT 'service'
        CHECK (signature_format IN ('service', 'standard'));

      -- A login system's sign-up hook (Supabase Auth, Ory Kratos) calling the service for one product and
      -- mode, authenticated with its own secret (sealed with SecretBox, shown once).
      CREATE TABLE login_hooks (
        id text PRIMARY KEY,
        product_id text NOT NULL REFERENCES products (id) ON DELETE CASCADE,
        mode text NOT NULL CHECK (mode IN ('live', 'test')),
        provider text NOT NULL CHECK (provider IN ('supabase', 'kratos')),
        secret bytea NOT NULL,
        fail_open boolean NOT NULL DEFAULT false,
        created_at timestamptz(3) NOT NULL,
        revoked_at timestamptz(3)
      );
      CREATE INDEX login_hooks_product ON login_hooks (product_id, mode);
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      DROP TABLE login_hooks;
      ALTER TABLE webhook_endpoints DROP COLUMN signature_format;
    `);
  }
}
