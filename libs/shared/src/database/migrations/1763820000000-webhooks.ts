import { MigrationInterface, QueryRunner } from 'typeorm';

export class Webhooks1763820000000 implements MigrationInterface {
  name = 'Webhooks1763820000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE webhook_endpoints (
        id text PRIMARY KEY,
        product_id text NOT NULL REFERENCES products (id) ON DELETE CASCADE,
        mode text NOT NULL CHECK (mode IN ('live', 'test')),
        url text NOT NULL,
        events text[] NOT NULL,
        secret bytea NOT NULL,
        previous_secret bytea,
        previous_secret_until timestamptz(3),
        disabled_at timestamptz(3),
        created_at timestamptz(3) NOT NULL
      );
      CREATE INDEX webhook_endpoints_product ON webhook_endpoints (product_id, mode);

      CREATE TABLE deliveries (
        id text PRIMARY KEY,
        endpoint_id text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
        event_id text NOT NULL REFERENCES events (id) ON DELETE CASCADE,
        event_type text NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
        created_at timestamptz(3) NOT NULL,
        next_attempt_at timestamptz(3),
        finished_at timestamptz(3),
        UNIQUE (endpoint_id, event_id)
      );
      CREATE INDEX deliveries_log ON deliveries (endpoint_id, created_at DESC);
      CREATE INDEX deliveries_event ON deliveries (event_id) WHERE status = 'pending';

      CREATE TABLE delivery_attempts (
        delivery_id text NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
        attempt int NOT NULL,
        attempted_at timestamptz(3) NOT NULL,
        status_code int,
        error text,
        duration_ms int NOT NULL,
        PRIMARY KEY (delivery_id, attempt)
      );
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE delivery_attempts, deliveries, webhook_endpoints`);
  }
}
