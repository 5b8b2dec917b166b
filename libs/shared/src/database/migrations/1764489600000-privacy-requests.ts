import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The trail of a person's own privacy requests (the my-data mail asked, the data downloaded, the entry
 * deleted): what, when and which entry, never the address, the link or its token. No foreign key to the
 * entry, whose deletion the row outlives; it goes with its product.
 */
export class PrivacyRequests1764489600000 implements MigrationInterface {
  name = 'PrivacyRequests1764489600000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE privacy_requests (
        id bigserial PRIMARY KEY,
        product_id text NOT NULL REFERENCES products (id) ON DELETE CASCADE,
        mode text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('request', 'download', 'deletion')),
        entry_id text NOT NULL,
        at timestamptz(3) NOT NULL
      );
      CREATE INDEX privacy_requests_product ON privacy_requests (product_id, mode, at DESC, id DESC);
      CREATE INDEX privacy_requests_entry ON privacy_requests (entry_id) WHERE kind = 'deletion';
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE privacy_requests`);
  }
}
