import { MigrationInterface, QueryRunner } from 'typeorm';

export class Dashboard1763827200000 implements MigrationInterface {
  name = 'Dashboard1763827200000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE dashboard_users (
        id text PRIMARY KEY,
        email text NOT NULL UNIQUE,
        password_hash text NOT NULL,
        created_at timestamptz(3) NOT NULL
      );

      CREATE TABLE team_members (
        user_id text NOT NULL REFERENCES dashboard_users (id) ON DELETE CASCADE,
        product_id text NOT NULL REFERENCES products (id) ON DELETE CASCADE,
        PRIMARY KEY (user_id, product_id)
      );

      CREATE TABLE dashboard_sessions (
        hash bytea PRIMARY KEY,
        user_id text NOT NULL REFERENCES dashboard_users (id) ON DELETE CASCADE,
        csrf_token text NOT NULL,
        created_at timestamptz(3) NOT NULL,
        expires_at timestamptz(3) NOT NULL
      );
      CREATE INDEX dashboard_sessions_expiry ON dashboard_sessions (expires_at);
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE dashboard_sessions, team_members, dashboard_users`);
  }
}
