import { SignupsCountThemselves1795907200000 } from '../libs/shared/src/database/migrations/1795907200000-signups-count-themselves';
import { Stack } from './support/stack';

describe(SignupsCountThemselves1795907200000.name, () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await Stack.start({ apps: [] });
    await stack.db.query(`INSERT INTO products (id, name, created_at) VALUES ('prod_c', 'C', now())`);
  });
  afterAll(() => stack.stop());

  /**
   * In one transaction: a statement that inserts two pending entries and names the first as counted
   * (as the sign-up's statement names its own), then one more entry; the pending count they add.
   */
  async function pendingAdded(prefix: string): Promise<number> {
    const pending = async () =>
      (await stack.db.query(`SELECT COALESCE(sum(pending), 0)::int AS pending FROM entry_counts WHERE product_id = 'prod_c'`))[0].pending as number;
    const before = await pending();
    await stack.db.transaction(async (manager) => {
      await manager.query(
        `WITH named AS (SELECT set_config('waitlist.counted_entry', $1 || '_0', true))
         INSERT INTO entries (id, product_id, mode, email, state, created_at)
         SELECT $1 || '_' || n, 'prod_c', 'live', $1 || n || '@x.example', 'pending', now() FROM named, generate_series(0, 1) AS n`,
        [prefix],
      );
      await manager.query(`INSERT INTO entries (id, product_id, mode, email, state, created_at) VALUES ($1 || '_2', 'prod_c', 'live', $1 || '2@x.example', 'pending', now())`, [
        prefix,
      ]);
    });
    return (await pending()) - before;
  }

  it('up, the insert that names its entry as counted notes the others, and a later insert of the transaction all; down, every one is noted', async () => {
    const migration = new SignupsCountThemselves1795907200000();
    const runner = stack.db.createQueryRunner();
    try {
      expect(await pendingAdded('ent_up')).toBe(2);
      await migration.down(runner);
      expect(await pendingAdded('ent_down')).toBe(3);
      await migration.up(runner);
      expect(await pendingAdded('ent_up_again')).toBe(2);
    } finally {
      await runner.release();
    }
  });
});
