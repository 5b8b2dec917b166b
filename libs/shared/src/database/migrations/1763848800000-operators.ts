import { MigrationInterface, QueryRunner } from 'typeorm';

export class Operators1763848800000 implements MigrationInterface {
  name = 'Operators1763848800000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      -- Operators see Bull Board, whose queues hold every product's jobs; nobody else does.
      ALTER TABLE dashboard_users ADD COLUMN operator boolean NOT NULL DEFAULT false;

      -- What the page after a dashboard action shows once (post/redirect/get), sealed with ENCRYPTION_KEY
      -- since it may hold a new secret; deleted when shown.
      ALTER TABLE dashboard_sessions ADD COLUMN flash bytea;
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE dashboard_sessions DROP COLUMN flash;
      ALTER TABLE dashboard_users DROP COLUMN operator;
    `);
  }
}
