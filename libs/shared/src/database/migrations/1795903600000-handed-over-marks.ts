import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An invitation's handover is marked the moment the SMTP server took the mail, one cheap statement,
 * and recorded (the entry invited, entry.invited) once for its whole chunk: the mark is what the API
 * records, before it answers, when the mailer died before the chunk's end, and what the next
 * invite-next or release records when the API died too (docs/decisions/invitations.md). The partial index holds the
 * marks in flight only, so looking for those left behind costs next to nothing.
 */
export class HandedOverMarks1795903600000 implements MigrationInterface {
  name = 'HandedOverMarks1795903600000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE invite_codes ADD COLUMN handed_over boolean NOT NULL DEFAULT false`);
    await db.query(`CREATE INDEX invite_codes_marked ON invite_codes (entry_id) WHERE handed_over AND NOT recorded`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX invite_codes_marked`);
    await db.query(`ALTER TABLE invite_codes DROP COLUMN handed_over`);
  }
}
