import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A delivery written once, after its first attempt, with that attempt inline (issue 24): the attempt
 * log becomes a view over the inline first attempts and a table of the others, and a webhooks event's
 * body moves from its event row to its outbox row, so that the fan-out's one statement per batch that
 * deletes the outbox rows takes the bodies with them.
 *
 * The previous version keeps working during the roll, in this order: the migration, then the webhooks
 * processes, then the api. An older webhooks process still inserts into delivery_attempts (the trigger
 * puts its rows in attempt_log) and reads bodies from events only, which an older api still writes
 * there; the new fan-out reads both places. An older webhooks process does not respect the new one's
 * claims: while both run, an event may be delivered twice, with the same event id.
 */
export class DeliveriesWrittenOnce1764108000000 implements MigrationInterface {
  name = 'DeliveriesWrittenOnce1764108000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE outbox ADD COLUMN body text;
      ALTER TABLE deliveries
        ADD COLUMN attempted_at timestamptz(3),
        ADD COLUMN status_code int,
        ADD COLUMN error text,
        ADD COLUMN duration_ms int;

      -- Every attempt not inline: the retries, and the attempts of deliveries an older version made.
      ALTER TABLE delivery_attempts RENAME TO attempt_log;
      ALTER TABLE attempt_log RENAME CONSTRAINT delivery_attempts_pkey TO attempt_log_pkey;
      ALTER TABLE attempt_log RENAME CONSTRAINT delivery_attempts_delivery_id_fkey TO attempt_log_delivery_id_fkey;

      CREATE VIEW delivery_attempts AS
        SELECT id AS delivery_id, 1 AS attempt, attempted_at, status_code, error, duration_ms FROM deliveries WHERE attempted_at IS NOT NULL
        UNION ALL
        SELECT delivery_id, attempt, attempted_at, status_code, error, duration_ms FROM attempt_log;

      CREATE FUNCTION log_delivery_attempt() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO attempt_log (delivery_id, attempt, attempted_at, status_code, error, duration_ms)
        VALUES (NEW.delivery_id, NEW.attempt, NEW.attempted_at, NEW.status_code, NEW.error, NEW.duration_ms);
        RETURN NEW;
      END $$;
      CREATE TRIGGER log_delivery_attempt INSTEAD OF INSERT ON delivery_attempts FOR EACH ROW EXECUTE FUNCTION log_delivery_attempt();
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      DROP VIEW delivery_attempts;
      DROP FUNCTION log_delivery_attempt();
      ALTER TABLE attempt_log RENAME CONSTRAINT attempt_log_pkey TO delivery_attempts_pkey;
      ALTER TABLE attempt_log RENAME CONSTRAINT attempt_log_delivery_id_fkey TO delivery_attempts_delivery_id_fkey;
      ALTER TABLE attempt_log RENAME TO delivery_attempts;
      INSERT INTO delivery_attempts (delivery_id, attempt, attempted_at, status_code, error, duration_ms)
        SELECT id, 1, attempted_at, status_code, error, duration_ms FROM deliveries WHERE attempted_at IS NOT NULL;
      ALTER TABLE deliveries DROP COLUMN attempted_at, DROP COLUMN status_code, DROP COLUMN error, DROP COLUMN duration_ms;

      -- The older fan-out reads a body from its event only.
      UPDATE events e SET body = o.body FROM outbox o WHERE o.queue = 'webhooks' AND o.body IS NOT NULL AND e.id = o.data->>'eventId';
      ALTER TABLE outbox DROP COLUMN body;
    `);
  }
}
