import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The mailer polls the my-data mails' queue every quarter of a second while it is empty; without an
 * index of its own, each poll read the whole outbox, tens of thousands of rows of other queues on
 * launch day. A partial index of the queue's rows, as the reminders have (outbox_reminders).
 */
export class OutboxPersonalData1795914400000 implements MigrationInterface {
  name = 'OutboxPersonalData1795914400000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE INDEX outbox_personal_data ON outbox (id) WHERE queue = 'personal-data'`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX outbox_personal_data`);
  }
}
