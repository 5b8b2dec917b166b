import { MigrationInterface, QueryRunner } from 'typeorm';

export class FanOutFromOutbox1763877600000 implements MigrationInterface {
  name = 'FanOutFromOutbox1763877600000';

  async up(db: QueryRunner): Promise<void> {
    // Fan-outs are no longer BullMQ jobs: the webhooks app claims their outbox rows while unpublished.
    // Rows an older relay had published (their jobs, left in Redis, now run nowhere) are handed back.
    await db.query(`UPDATE outbox SET published_at = NULL, leased_until = NULL WHERE queue = 'webhooks'`);
  }

  async down(): Promise<void> {
    // Unpublished rows are what an older relay publishes anyway.
  }
}
