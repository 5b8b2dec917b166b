import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Bounces and complaints (docs/decisions/mail.md, "Bounces and complaints"): an entry's address marked
 * undeliverable and its soft bounces counted; the provider events applied, by their replay key, so
 * that a replay changes nothing. A bounce names an address, not an entry: entries_email finds every
 * entry of it across products and modes. The dashboard's list reads entries_undeliverable. The
 * overview's bounce and complaint rates divide daily_mail_counts (striped as daily_event_counts is, as
 * every mail adds to it) of the bounces and complaints by those of the mails sent.
 */
export class MailFeedback1764471600000 implements MigrationInterface {
  name = 'MailFeedback1764471600000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE entries ADD COLUMN undeliverable_at timestamptz(3), ADD COLUMN soft_bounces int NOT NULL DEFAULT 0;
      CREATE INDEX entries_email ON entries (email);
      CREATE INDEX entries_undeliverable ON entries (product_id, mode, undeliverable_at DESC, id) WHERE undeliverable_at IS NOT NULL;
      CREATE TABLE mail_feedback (
        provider text NOT NULL,
        event_id text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('hard_bounce', 'soft_bounce', 'complaint')),
        applied_at timestamptz(3) NOT NULL,
        PRIMARY KEY (provider, event_id)
      );
      CREATE INDEX mail_feedback_age ON mail_feedback (applied_at);
      CREATE TABLE daily_mail_counts (
        product_id text NOT NULL REFERENCES products (id) ON DELETE CASCADE,
        mode text NOT NULL,
        day date NOT NULL,
        kind text NOT NULL CHECK (kind IN ('sent', 'hard_bounce', 'soft_bounce', 'complaint')),
        stripe smallint NOT NULL DEFAULT counter_stripe(),
        count int NOT NULL,
        PRIMARY KEY (product_id, mode, day, kind, stripe)
      );
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      DROP TABLE daily_mail_counts, mail_feedback;
      DROP INDEX entries_undeliverable;
      DROP INDEX entries_email;
      ALTER TABLE entries DROP COLUMN undeliverable_at, DROP COLUMN soft_bounces;
    `);
  }
}
