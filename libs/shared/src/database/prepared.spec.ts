import fc from 'fast-check';
import { Pool, PoolClient } from 'pg';
import type { QueryRunner } from 'typeorm';
import { databaseUrl } from '../../../../test/support/databases';
import { committedQuery } from './prepared';

/** committedQuery writes its values into the SQL as literals: every value must arrive as it was sent, and nothing else run. */
describe('committedQuery', () => {
  let pool: Pool;
  let client: PoolClient;
  const runner = { connect: async () => client } as unknown as QueryRunner;

  beforeAll(async () => {
    pool = new Pool({ connectionString: databaseUrl('postgres'), max: 1 });
    client = await pool.connect();
    await client.query(`CREATE TEMP TABLE written (text text, flag boolean, at timestamptz, list text[], nothing text)`);
  });
  afterAll(async () => {
    client.release();
    await pool.end();
  });

  it('writes each value as it was given, and commits the transaction with the statement', async () => {
    // Quotes, backslashes, dollar signs, semicolons and comment marks among characters of any plane.
    const unit = fc.oneof(fc.constantFrom("'", '\\', '$', ';', '"', '\n', '--', "E'"), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }));
    const text = fc.string({ unit, maxLength: 200 }).map(storable);
    await fc.assert(
      fc.asyncProperty(text, fc.boolean(), fc.date({ noInvalidDate: true, min: new Date(0), max: new Date('9999-12-31T23:59:59.999Z') }), fc.array(text, { maxLength: 5 }), async (s, flag, at, list) => {
        await client.query('TRUNCATE written');
        await client.query('BEGIN');
        const rows = await committedQuery<{ text: string; flag: boolean; at: Date; list: string[]; nothing: null }>(
          runner,
          `INSERT INTO written VALUES ($1, $2, $3, $4, $5) RETURNING *`,
          [s, flag, at, list, null],
        ).catch(async (error) => {
          await client.query('ROLLBACK');
          throw error;
        });
        expect(rows).toEqual([{ text: s, flag, at, list, nothing: null }]);
        // Committed: a rollback now finds no transaction, and the row stays.
        await client.query('ROLLBACK');
        const { rows: kept } = await client.query(`SELECT count(*)::int AS n FROM written`);
        expect(kept).toEqual([{ n: 1 }]);
      }),
      { numRuns: 200 },
    );
  });

  it('leaves the transaction aborted, and commits nothing, when the statement fails', async () => {
    await client.query('TRUNCATE written');
    await client.query('BEGIN');
    await client.query(`INSERT INTO written (text) VALUES ('before')`);
    await expect(committedQuery(runner, `INSERT INTO written (flag) VALUES ($1::text::boolean)`, ['not a boolean'])).rejects.toThrow(/boolean/);
    await client.query('ROLLBACK');
    const { rows } = await client.query(`SELECT count(*)::int AS n FROM written`);
    expect(rows).toEqual([{ n: 0 }]);
  });
});

/** Text as PostgreSQL stores it: no NUL, and a lone surrogate as the replacement character (as UTF-8 writes it). */
function storable(text: string): string {
  return text.replaceAll('\0', '').replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}
