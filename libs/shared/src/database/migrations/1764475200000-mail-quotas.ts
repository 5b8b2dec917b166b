import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A product's hourly and daily quotas of invitation mails, which releases keep to; null (the default):
 * none. A run records how many of its count the quota left for later.
 */
export class MailQuotas1764475200000 implements MigrationInterface {
  name = 'MailQuotas1764475200000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE products ADD COLUMN mail_quota_hourly int CHECK (mail_quota_hourly > 0), ADD COLUMN mail_quota_daily int CHECK (mail_quota_daily > 0);
      ALTER TABLE release_runs ADD COLUMN skipped_for_quota int NOT NULL DEFAULT 0;
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE release_runs DROP COLUMN skipped_for_quota;
      ALTER TABLE products DROP COLUMN mail_quota_daily, DROP COLUMN mail_quota_hourly;
    `);
  }
}
