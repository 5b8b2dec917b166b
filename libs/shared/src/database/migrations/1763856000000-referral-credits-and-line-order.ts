import { MigrationInterface, QueryRunner } from 'typeorm';

export class ReferralCreditsAndLineOrder1763856000000 implements MigrationInterface {
  name = 'ReferralCreditsAndLineOrder1763856000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      -- The mailboxes (SHA-256 of canonicalEmail) whose referral has counted: each counts once per
      -- product and mode, whatever variant of the address, and after its entry is gone.
      CREATE TABLE referral_credits (
        product_id text NOT NULL REFERENCES products (id) ON DELETE CASCADE,
        mode text NOT NULL,
        email_hash bytea NOT NULL,
        PRIMARY KEY (product_id, mode, email_hash)
      );
      -- Every confirmed referral so far has counted. canonicalEmail as it is today: no +tag; Gmail
      -- and Googlemail without dots, as gmail.com.
      INSERT INTO referral_credits (product_id, mode, email_hash)
        SELECT DISTINCT product_id, mode, sha256(convert_to(
                 CASE WHEN domain IN ('gmail.com', 'googlemail.com') THEN replace(local, '.', '') || '@gmail.com'
                      ELSE local || '@' || domain END, 'UTF8'))
        FROM (SELECT product_id, mode, substring(email from '@([^@]*)$') AS domain,
                     regexp_replace(substring(email from '^(.*)@'), '^([^+]+)\\+.*$', '\\1') AS local
              FROM entries WHERE referred_by IS NOT NULL AND confirmation_seq IS NOT NULL) AS referred;

      -- Ties in line go to the entry moved up by referrals or by move-up calls, i.e. whose line key is
      -- below its confirmation number (it was: by move-up calls only). The tie follows from the columns
      -- kept already, so no row changes; the index follows the new order (IN_LINE_ORDER).
      DROP INDEX entries_line;
      CREATE INDEX entries_line ON entries (product_id, mode, line_key, (line_key = confirmation_seq), confirmation_seq)
        WHERE state = 'confirmed';
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      DROP INDEX entries_line;
      CREATE INDEX entries_line ON entries (product_id, mode, line_key, (moved_up = 0), confirmation_seq)
        WHERE state = 'confirmed';
      DROP TABLE referral_credits;
    `);
  }
}
