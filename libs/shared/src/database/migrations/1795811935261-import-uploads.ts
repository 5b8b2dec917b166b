import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A CSV file uploaded to the dashboard's import, held between its column picker, its dry run and its
 * import so that it is chosen once: for the product, mode and person who sent it, until expires_at (an
 * hour), removed by the import or by the maintenance round after that. It holds addresses; it goes with
 * its product and its person.
 */
export class ImportUploads1795811935261 implements MigrationInterface {
  name = 'ImportUploads1795811935261';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE import_uploads (
        id uuid PRIMARY KEY,
        product_id text NOT NULL REFERENCES products (id) ON DELETE CASCADE,
        mode text NOT NULL,
        user_id text NOT NULL REFERENCES dashboard_users (id) ON DELETE CASCADE,
        file_name text NOT NULL,
        bytes bytea NOT NULL,
        sha256 text NOT NULL,
        created_at timestamptz(3) NOT NULL,
        expires_at timestamptz(3) NOT NULL
      );
      CREATE INDEX import_uploads_expiry ON import_uploads (expires_at);
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE import_uploads`);
  }
}
