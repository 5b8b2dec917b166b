import { MigrationInterface, QueryRunner } from 'typeorm';

export class ConfirmationsFromOutbox1763892000000 implements MigrationInterface {
  name = 'ConfirmationsFromOutbox1763892000000';

  async up(db: QueryRunner): Promise<void> {
    // Confirmation mails are no longer BullMQ jobs: the mailer claims their outbox rows when due (a
    // lease, or the wait for a retry, ends), in due order and then row order, and counts their attempts.
    await db.query(`ALTER TABLE outbox ADD COLUMN attempts smallint NOT NULL DEFAULT 0`);
    await db.query(`CREATE INDEX outbox_mail_due ON outbox ((COALESCE(leased_until, '-infinity')), id) WHERE queue = 'mail'`);
    // Rows an older relay had published (their jobs, left in Redis, now run nowhere) are handed back.
    await db.query(`UPDATE outbox SET published_at = NULL, leased_until = NULL WHERE queue = 'mail'`);
    // Only that relay's reconciler read published rows.
    await db.query(`DROP INDEX outbox_published`);
  }

  async down(db: QueryRunner): Promise<void> {
    // Unpublished rows are what an older relay publishes anyway.
    await db.query(`CREATE INDEX outbox_published ON outbox (queue, published_at) WHERE published_at IS NOT NULL`);
    await db.query(`DROP INDEX outbox_mail_due`);
    await db.query(`ALTER TABLE outbox DROP COLUMN attempts`);
  }
}
