import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What a confirmation reads of its line once it holds its number (LineService.join): the entries
 * waiting and the product's referral places. A statement's snapshot is taken before it waits for the
 * line's counter, so the statement that takes the number cannot read them itself without missing what
 * committed meanwhile; a volatile plpgsql function reads them in a snapshot of its own. It takes the
 * number only so that the statement calls it after the number was taken.
 */
export class LineAfterNumber1795900000000 implements MigrationInterface {
  name = 'LineAfterNumber1795900000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE FUNCTION line_after_number(product text, line_mode text, seq bigint, OUT waiting int, OUT places int)
      LANGUAGE plpgsql VOLATILE AS $$
      BEGIN
        SELECT COALESCE(sum(confirmed), 0)::int INTO waiting FROM entry_counts WHERE product_id = product AND mode = line_mode;
        SELECT referral_places INTO places FROM products WHERE id = product;
      END $$;
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP FUNCTION line_after_number(text, text, bigint)`);
  }
}
