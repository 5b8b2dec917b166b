import { MigrationInterface, QueryRunner } from 'typeorm';

export class OverviewAndSettings1763834400000 implements MigrationInterface {
  name = 'OverviewAndSettings1763834400000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE products ADD COLUMN sender_name text;

      -- Events per product, mode, UTC day and type, kept with each event: the overview reads 30 rows
      -- per series instead of counting a month of events.
      CREATE TABLE daily_event_counts (
        product_id text NOT NULL REFERENCES products (id) ON DELETE CASCADE,
        mode text NOT NULL,
        day date NOT NULL,
        type text NOT NULL,
        count int NOT NULL,
        PRIMARY KEY (product_id, mode, day, type)
      );
      INSERT INTO daily_event_counts (product_id, mode, day, type, count)
        SELECT product_id, mode, (created_at AT TIME ZONE 'UTC')::date, type, count(*) FROM events GROUP BY 1, 2, 3, 4;

      -- Maintenance deletes events older than the delivery log's 30 days.
      CREATE INDEX events_age ON events (created_at);
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      DROP INDEX events_age;
      DROP TABLE daily_event_counts;
      ALTER TABLE products DROP COLUMN sender_name;
    `);
  }
}
