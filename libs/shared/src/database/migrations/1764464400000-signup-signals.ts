import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A product's cheap bot signals on its forms (issue 35): a honeypot field, and the least time between a
 * form being shown and its sign-up. Both off by default, so that SPEC.md's sign-up is unchanged. A
 * sign-up they drop is stored nowhere but in the day's count (daily_event_counts, type refused:<reason>).
 */
export class SignupSignals1764464400000 implements MigrationInterface {
  name = 'SignupSignals1764464400000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE products
        ADD COLUMN signup_honeypot boolean NOT NULL DEFAULT false,
        ADD COLUMN signup_min_fill_seconds integer NOT NULL DEFAULT 0 CHECK (signup_min_fill_seconds BETWEEN 0 AND 3600);
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE products DROP COLUMN signup_min_fill_seconds, DROP COLUMN signup_honeypot;`);
  }
}
