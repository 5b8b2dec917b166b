import { canonicalEmail, hashToken } from '@app/shared';
import { ReferralCreditsAndLineOrder1763856000000 } from '../libs/shared/src/database/migrations/1763856000000-referral-credits-and-line-order';
import { Stack } from './support/stack';

describe(ReferralCreditsAndLineOrder1763856000000.name, () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await Stack.start({ apps: [] });
  });
  afterAll(() => stack.stop());

  const lineIndex = async () => (await stack.db.query(`SELECT indexdef FROM pg_indexes WHERE indexname = 'entries_line'`))[0].indexdef as string;

  it('credits every confirmed referral made before it, by mailbox, and puts the line index in the new order; down undoes both', async () => {
    const migration = new ReferralCreditsAndLineOrder1763856000000();
    const runner = stack.db.createQueryRunner();
    try {
      await migration.down(runner);
      expect(await lineIndex()).toContain('(moved_up = 0)');
      await stack.db.query(`INSERT INTO products (id, name, created_at) VALUES ('prod_m', 'M', now())`);
      const entry = (id: string, mode: string, email: string, seq: number | null, referredBy: string | null) =>
        stack.db.query(
          `INSERT INTO entries (id, product_id, mode, email, state, created_at, confirmation_seq, line_key, referred_by)
           VALUES ($1, 'prod_m', $2, $3, $4, now(), $5, $5, $6)`,
          [id, mode, email, seq === null ? 'pending' : 'confirmed', seq, referredBy],
        );
      await entry('ent_ref', 'test', 'ref@x.example', 1, null);
      await entry('ent_1', 'test', 'pal.mate+x@googlemail.com', 2, 'ent_ref');
      await entry('ent_2', 'test', 'palmate@gmail.com', 3, 'ent_ref');
      await entry('ent_3', 'test', 'bob+a@x.example', 4, 'ent_ref');
      await entry('ent_4', 'test', 'carol@x.example', null, 'ent_ref');
      await entry('ent_5', 'test', 'dave@x.example', 5, null);
      await entry('ent_6', 'live', 'bob@x.example', 1, 'ent_ref');

      await migration.up(runner);
      const rows: { mode: string; email_hash: Buffer }[] = await stack.db.query(`SELECT mode, email_hash FROM referral_credits ORDER BY mode, email_hash`);
      const credit = (mode: string, email: string) => ({ mode, email_hash: hashToken(canonicalEmail(email)) });
      const expected = [credit('live', 'bob@x.example'), credit('test', 'pal.mate+x@googlemail.com'), credit('test', 'bob+a@x.example')];
      expect(rows).toHaveLength(3);
      expect(rows).toEqual(expect.arrayContaining(expected));
      expect(await lineIndex()).toContain('line_key, ((line_key = confirmation_seq)), confirmation_seq');
    } finally {
      await runner.release();
    }
  });
});
