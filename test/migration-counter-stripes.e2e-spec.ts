import { CounterStripes1763884800000 } from '../libs/shared/src/database/migrations/1763884800000-counter-stripes';
import { MailFeedback1764471600000 } from '../libs/shared/src/database/migrations/1764471600000-mail-feedback';
import { Stack } from './support/stack';

describe(CounterStripes1763884800000.name, () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await Stack.start({ apps: [] });
  });
  afterAll(() => stack.stop());

  const counts = () =>
    Promise.all([
      stack.db.query(`SELECT mode, sum(pending)::int AS pending, sum(confirmed)::int AS confirmed FROM entry_counts GROUP BY mode ORDER BY mode`),
      stack.db.query(`SELECT type, sum(count)::int AS count FROM daily_event_counts GROUP BY type ORDER BY type`),
    ]);

  it('down folds each count into one row and up keeps it, after which every connection adds to its own stripe', async () => {
    const migration = new CounterStripes1763884800000();
    // A later migration's table is striped by counter_stripe() too: it goes first and comes back after.
    const later = new MailFeedback1764471600000();
    const runner = stack.db.createQueryRunner();
    try {
      await stack.db.query(`INSERT INTO products (id, name, created_at) VALUES ('prod_s', 'S', now())`);
      // The same counts spread over stripes, as connections of several processes leave them.
      await stack.db.query(
        `INSERT INTO entry_counts (product_id, mode, stripe, pending, confirmed, invited, redeemed)
         VALUES ('prod_s', 'live', 0, 2, 1, 0, 0), ('prod_s', 'live', 7, 3, 0, 0, 0), ('prod_s', 'test', 15, 1, 4, 0, 0)`,
      );
      await stack.db.query(
        `INSERT INTO daily_event_counts (product_id, mode, day, type, stripe, count)
         VALUES ('prod_s', 'live', current_date, 'entry.created', 3, 5), ('prod_s', 'live', current_date, 'entry.created', 9, 6)`,
      );
      const before = await counts();

      await later.down(runner);
      await migration.down(runner);
      expect(await stack.db.query(`SELECT count(*)::int AS n FROM entry_counts GROUP BY product_id, mode`)).toEqual([{ n: 1 }, { n: 1 }]);
      expect(await counts()).toEqual(before);
      await migration.up(runner);
      await later.up(runner);
      expect(await counts()).toEqual(before);

      // On the runner's one connection, whose stripe is known.
      await runner.query(`INSERT INTO entries (id, product_id, mode, email, state, created_at) VALUES ('ent_s', 'prod_s', 'live', 's@x.example', 'pending', now())`);
      const [{ stripe }] = await runner.query(`SELECT counter_stripe() AS stripe`);
      expect(await stack.db.query(`SELECT stripe, pending::int FROM entry_counts WHERE mode = 'live' AND stripe NOT IN (0, 7)`)).toEqual(
        stripe === 0 || stripe === 7 ? [] : [{ stripe, pending: 1 }],
      );
      expect((await counts())[0]).toEqual([
        { mode: 'live', pending: 6, confirmed: 1 },
        { mode: 'test', pending: 1, confirmed: 4 },
      ]);
    } finally {
      await runner.release();
    }
  });
});
