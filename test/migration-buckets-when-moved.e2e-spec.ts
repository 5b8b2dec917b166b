import { BucketsWhenMoved1764201600000 } from '../libs/shared/src/database/migrations/1764201600000-buckets-when-moved';
import type { QueryRunner } from 'typeorm';
import { Stack } from './support/stack';

describe(BucketsWhenMoved1764201600000.name, () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await Stack.start({ apps: [] });
    await stack.db.query(`INSERT INTO products (id, name, created_at) VALUES ('prod_b', 'B', now())`);
  });
  afterAll(() => stack.stop());

  /** A new pending entry, as a sign-up writes one. */
  const pendingEntry = (on: QueryRunner, id: string) =>
    on.query(`INSERT INTO entries (id, product_id, mode, email, state, created_at) VALUES ($1, 'prod_b', 'live', $1 || '@x.example', 'pending', now())`, [id]);

  /**
   * Whether a sign-up's commit (a pending entry) on `on` touches line_buckets: another connection holds
   * the table locked meanwhile, so a statement on it waits past the lock timeout and fails.
   */
  async function signUpTouchesBuckets(on: QueryRunner, id: string): Promise<boolean> {
    const holder = stack.db.createQueryRunner();
    await holder.startTransaction();
    await holder.query(`LOCK TABLE line_buckets IN ACCESS EXCLUSIVE MODE`);
    try {
      await on.query(`SET lock_timeout = '2s'`);
      await pendingEntry(on, id);
      return false;
    } catch (error) {
      if ((error as { code?: string }).code !== '55P03') throw error;
      return true;
    } finally {
      await on.query(`RESET lock_timeout`);
      await holder.rollbackTransaction();
      await holder.release();
    }
  }
  const state = () =>
    Promise.all([
      stack.db.query(`SELECT sum(pending)::int AS pending, sum(confirmed)::int AS confirmed FROM entry_counts WHERE product_id = 'prod_b'`),
      stack.db.query(`SELECT bucket::int, waiting::int FROM line_buckets WHERE product_id = 'prod_b' ORDER BY bucket`),
    ]);

  /** A sign-up, a confirmation and a deletion, the last two moving the line: the counts and the line's buckets after each. */
  async function signUpConfirmDelete(on: QueryRunner, id: string, lineKey: number): Promise<void> {
    await pendingEntry(on, id);
    expect((await state())[0]).toEqual([{ pending: 1, confirmed: 0 }]);
    await on.query(`UPDATE entries SET state = 'confirmed', line_key = $2, confirmation_seq = $2 WHERE id = $1`, [id, lineKey]);
    expect(await state()).toEqual([[{ pending: 0, confirmed: 1 }], [{ bucket: Math.floor(lineKey / 1024), waiting: 1 }]]);
    await on.query(`DELETE FROM entries WHERE id = $1`, [id]);
    expect(await state()).toEqual([[{ pending: 0, confirmed: 0 }], []]);
  }

  it('a commit that moves no confirmed entry leaves line_buckets alone, up; down touches it again; the counts and buckets are the same either way', async () => {
    const migration = new BucketsWhenMoved1764201600000();
    const runner = stack.db.createQueryRunner();
    try {
      expect(await signUpTouchesBuckets(runner, 'ent_pending_up')).toBe(false);
      await runner.query(`DELETE FROM entries WHERE product_id = 'prod_b'`);
      await signUpConfirmDelete(runner, 'ent_up', 5000);

      await migration.down(runner);
      expect(await signUpTouchesBuckets(runner, 'ent_pending_down')).toBe(true);
      await signUpConfirmDelete(runner, 'ent_down', 7000);

      await migration.up(runner);
      expect(await signUpTouchesBuckets(runner, 'ent_pending_up_again')).toBe(false);
      await runner.query(`DELETE FROM entries WHERE product_id = 'prod_b'`);
      await signUpConfirmDelete(runner, 'ent_up_again', 9000);
    } finally {
      await runner.release();
    }
  });
});
