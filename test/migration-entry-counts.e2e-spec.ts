import { EntryCounts1763870400000 } from '../libs/shared/src/database/migrations/1763870400000-entry-counts';
import { Stack } from './support/stack';

describe(EntryCounts1763870400000.name, () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await Stack.start({ apps: [] });
  });
  afterAll(() => stack.stop());

  const tables = async () =>
    (await stack.db.query(`SELECT tablename FROM pg_tables WHERE tablename IN ('entry_counts', 'line_buckets') ORDER BY 1`)).map(
      (row: { tablename: string }) => row.tablename,
    );

  it('counts the entries there are by product, mode and state, and the waiting ones by stretch of line keys; down drops both', async () => {
    const migration = new EntryCounts1763870400000();
    const runner = stack.db.createQueryRunner();
    try {
      await migration.down(runner);
      expect(await tables()).toEqual([]);
      await stack.db.query(`INSERT INTO products (id, name, created_at) VALUES ('prod_m', 'M', now())`);
      const entry = (id: string, mode: string, state: string, lineKey: number | null) =>
        stack.db.query(
          `INSERT INTO entries (id, product_id, mode, email, state, created_at, confirmation_seq, line_key)
           VALUES ($1, 'prod_m', $2, $1 || '@x.example', $3, now(), $4, $4)`,
          [id, mode, state, lineKey],
        );
      await entry('ent_1', 'live', 'pending', null);
      await entry('ent_2', 'live', 'confirmed', 5);
      await entry('ent_3', 'live', 'confirmed', 1023);
      await entry('ent_4', 'live', 'confirmed', 1024);
      await entry('ent_5', 'live', 'confirmed', -3);
      await entry('ent_6', 'live', 'invited', 2);
      await entry('ent_7', 'live', 'redeemed', 1);
      await entry('ent_8', 'test', 'confirmed', 1);

      await migration.up(runner);
      expect(await stack.db.query(`SELECT mode, pending::int, confirmed::int, invited::int, redeemed::int FROM entry_counts ORDER BY mode`)).toEqual([
        { mode: 'live', pending: 1, confirmed: 4, invited: 1, redeemed: 1 },
        { mode: 'test', pending: 0, confirmed: 1, invited: 0, redeemed: 0 },
      ]);
      expect(await stack.db.query(`SELECT mode, bucket::int, waiting::int FROM line_buckets ORDER BY mode, bucket`)).toEqual([
        { mode: 'live', bucket: -1, waiting: 1 },
        { mode: 'live', bucket: 0, waiting: 2 },
        { mode: 'live', bucket: 1, waiting: 1 },
        { mode: 'test', bucket: 0, waiting: 1 },
      ]);
      // From here on the triggers keep them.
      await stack.db.query(`UPDATE entries SET state = 'invited' WHERE id = 'ent_3'`);
      expect(await stack.db.query(`SELECT confirmed::int, invited::int FROM entry_counts WHERE mode = 'live'`)).toEqual([{ confirmed: 3, invited: 2 }]);
      expect(await stack.db.query(`SELECT bucket::int, waiting::int FROM line_buckets WHERE mode = 'live' AND bucket = 0`)).toEqual([{ bucket: 0, waiting: 1 }]);
      expect(await tables()).toEqual(['entry_counts', 'line_buckets']);
    } finally {
      await runner.release();
    }
  });
});
