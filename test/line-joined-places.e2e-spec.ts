import { EntryRecord } from '@app/shared';
import { confirmPath, joinLine, signUp } from './support/flows';
import { Stack } from './support/stack';
import { ProductsService } from '../apps/api/src/products/products.service';

/**
 * A confirmation takes its number last, in one statement with everything that needs it
 * (LineService.join): its waiting count and the referral places are read after the number was taken,
 * so concurrent confirmations of one product still join at exact places and credit under the places of
 * their moment.
 */
describe('concurrent confirmations of one product', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api', 'mailer'], env: { RATE_LIMIT_SIGNUP: '1000/1m', RATE_LIMIT_SIGNUP_ADDRESS: '100/1h' } });
  });
  afterAll(() => stack.stop());

  it('take numbers 1 … n without a gap, each joining at the place of its number, and credit each referral once', async () => {
    const key = (await stack.createProduct()).keys.test.publishable;
    const referrer = await joinLine(stack, key, 'joined-referrer@example.com');
    const emails = Array.from({ length: 30 }, (_, i) => `joined-${i}@example.com`);
    for (const [i, email] of emails.entries()) await signUp(stack, key, email, i % 3 === 0 ? referrer.referralCode! : undefined);
    const paths = await Promise.all(emails.map((email) => confirmPath(stack, email)));
    const answers = await Promise.all(paths.map((path) => stack.request({ method: 'POST', url: path })));
    expect(answers.map((answer) => answer.status)).toEqual(Array(30).fill(303));

    const joined: { email: string; seq: string; place: number }[] = await stack.db.query(
      `SELECT e.email, e.confirmation_seq AS seq, h.place FROM entries e JOIN place_history h ON h.entry_id = e.id AND h.cause = 'joined'
       WHERE e.product_id = $1 ORDER BY e.confirmation_seq`,
      [referrer.productId],
    );
    expect(joined.map((row) => Number(row.seq))).toEqual(Array.from({ length: 31 }, (_, i) => i + 1));
    // Nobody left the line meanwhile, so the entry with number k joined at place k.
    expect(joined.filter((row) => row.place !== Number(row.seq))).toEqual([]);
    const credits: { places: number }[] = await stack.db.query(`SELECT places FROM place_history WHERE entry_id = $1 AND cause = 'referral_credited'`, [referrer.id]);
    expect(credits).toEqual(Array(10).fill({ places: 1 }));
    const after = await stack.db.getRepository(EntryRecord).findOneByOrFail({ id: referrer.id });
    expect(after).toMatchObject({ referrals: 10, lineKey: referrer.lineKey! - 10 });
    const [{ events, counted }] = await stack.db.query(
      `SELECT (SELECT count(*)::int FROM events WHERE product_id = $1 AND type = 'entry.confirmed') AS events,
              (SELECT sum(count)::int FROM daily_event_counts WHERE product_id = $1 AND type = 'entry.confirmed') AS counted`,
      [referrer.productId],
    );
    expect({ events, counted }).toEqual({ events: 31, counted: 31 });
  });

  it('count a referrer\'s network exactly while they confirm at once: the velocity rule credits its threshold, no more', async () => {
    const product = await stack.createProduct();
    await stack.api.get(ProductsService).update(product.id, { referralProtection: 'standard', velocityLimit: 3, tooFastSeconds: 0 });
    const key = product.keys.test.publishable;
    const farmer = await joinLine(stack, key, 'farmer@example.com');
    const emails = Array.from({ length: 12 }, (_, i) => `farm-${i}@example.com`);
    for (const email of emails) await signUp(stack, key, email, farmer.referralCode!);
    const paths = await Promise.all(emails.map((email) => confirmPath(stack, email)));
    await Promise.all(paths.map((path, i) => stack.request({ method: 'POST', url: path, remoteAddress: `203.0.113.${i + 1}` })));

    const states: { state: string; count: number }[] = await stack.db.query(
      `SELECT state, count(*)::int AS count FROM referrals WHERE referrer_id = $1 GROUP BY state ORDER BY state`,
      [farmer.id],
    );
    expect(states).toEqual([{ state: 'credited', count: 3 }, { state: 'withheld', count: 9 }]);
    expect(await stack.db.getRepository(EntryRecord).findOneByOrFail({ id: farmer.id })).toMatchObject({ referrals: 3, lineKey: farmer.lineKey! - 3 });
  });
});
