import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An invitation's handover is marked the moment the SMTP server took the mail, one cheap statement,
 * and recorded (the entry invited, entry.invited) once for its whole chunk: the mark is what the API
 * records, before it answers, when the mailer died before the chunk's end (docs/decisions.md).
 */
export class HandedOverMarks1795900000000 implements MigrationInterface {
  name = 'HandedOverMarks1795900000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE invite_codes ADD COLUMN handed_over boolean NOT NULL DEFAULT false`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE invite_codes DROP COLUMN handed_over`);
  }
}
