import { MigrationInterface, QueryRunner } from 'typeorm';

export class DurableJobs1763841600000 implements MigrationInterface {
  name = 'DurableJobs1763841600000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      -- Outbox rows stay until their job's work is done: Redis is a transport, not the only copy.
      ALTER TABLE outbox ADD COLUMN published_at timestamptz(3), ADD COLUMN leased_until timestamptz(3);
      DROP INDEX outbox_queue;
      CREATE INDEX outbox_unpublished ON outbox (queue, id) WHERE published_at IS NULL;
      CREATE INDEX outbox_published ON outbox (queue, published_at) WHERE published_at IS NOT NULL;

      -- Pending deliveries whose job may have vanished with Redis, by when they are due.
      CREATE INDEX deliveries_due ON deliveries ((COALESCE(next_attempt_at, created_at))) WHERE status = 'pending';

      -- A code is written before its mail is handed over, bound to its request, and recorded after.
      ALTER TABLE invite_codes ADD COLUMN request_id text, ADD COLUMN recorded boolean NOT NULL DEFAULT true;
      ALTER TABLE invite_codes ALTER COLUMN recorded DROP DEFAULT;
      -- invite_request now only names the request that holds the entry; this one names whose mail invited it last.
      ALTER TABLE entries ADD COLUMN invited_by_request text;
      UPDATE entries SET invited_by_request = invite_request, invite_request = NULL
        WHERE invite_request IS NOT NULL AND invite_held_until IS NULL;
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      UPDATE entries SET invite_request = invited_by_request WHERE invite_request IS NULL;
      ALTER TABLE entries DROP COLUMN invited_by_request;
      DELETE FROM invite_codes WHERE NOT recorded;
      ALTER TABLE invite_codes DROP COLUMN recorded, DROP COLUMN request_id;
      DROP INDEX deliveries_due;
      DROP INDEX outbox_published;
      DROP INDEX outbox_unpublished;
      CREATE INDEX outbox_queue ON outbox (queue, id);
      -- Rows already handed to Redis would be sent again by the old relay: drop them.
      DELETE FROM outbox WHERE published_at IS NOT NULL;
      ALTER TABLE outbox DROP COLUMN leased_until, DROP COLUMN published_at;
    `);
  }
}
