import { MigrationInterface, QueryRunner } from 'typeorm';

export class ClaimWindow1764003600000 implements MigrationInterface {
  name = 'ClaimWindow1764003600000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      -- A product's claim window (none by default: codes live INVITE_CODE_TTL and entries stay invited),
      -- its reminder's lead in hours (none by default), and what becomes of an entry whose window ended.
      ALTER TABLE products ADD COLUMN claim_window_days integer,
        ADD COLUMN claim_reminder_hours integer,
        ADD COLUMN claim_expiry text NOT NULL DEFAULT 'back_in_line';

      -- A code made under a claim window: the window's end (its expires_at too), swept by the
      -- maintenance round and cleared when swept; when its reminder is due, cleared when queued; and
      -- the code itself sealed with ENCRYPTION_KEY, only while a reminder is to carry it.
      ALTER TABLE invite_codes ADD COLUMN claim_ends_at timestamptz(3),
        ADD COLUMN remind_at timestamptz(3),
        ADD COLUMN sealed_code bytea;
      CREATE INDEX invite_codes_claim_ends ON invite_codes (claim_ends_at) WHERE claim_ends_at IS NOT NULL;
      CREATE INDEX invite_codes_remind ON invite_codes (remind_at) WHERE remind_at IS NOT NULL;

      -- Reminder mails wait in the outbox for the mailer, oldest first.
      CREATE INDEX outbox_reminders ON outbox (id) WHERE queue = 'reminders';
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      DROP INDEX outbox_reminders;
      DELETE FROM outbox WHERE queue = 'reminders';
      ALTER TABLE invite_codes DROP COLUMN sealed_code, DROP COLUMN remind_at, DROP COLUMN claim_ends_at;
      ALTER TABLE products DROP COLUMN claim_expiry, DROP COLUMN claim_reminder_hours, DROP COLUMN claim_window_days;
    `);
  }
}
