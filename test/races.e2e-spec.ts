import { EntryRecord, EventRecord } from '@app/shared';
import { confirmPath, joinLine } from './support/flows';
import { Stack } from './support/stack';
import { ProductsService } from '../apps/api/src/products/products.service';

describe('concurrent sign-ups and confirmations', () => {
  let stack: Stack;
  let pk: string;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api', 'mailer'], env: { RATE_LIMIT_SIGNUP: '1000/1m', RATE_LIMIT_SIGNUP_ADDRESS: '100/1h' } });
    pk = (await stack.createProduct()).keys.test.publishable;
  });
  afterAll(() => stack.stop());

  const countEvents = (type: string) => stack.db.getRepository(EventRecord).countBy({ type });

  it('20 concurrent sign-ups of one new address make one entry and one entry.created', async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        stack.request({ method: 'POST', url: '/public/v1/signups', body: { key: pk, email: 'burst@example.com' } }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(202));
    expect(await stack.db.getRepository(EntryRecord).countBy({ email: 'burst@example.com' })).toBe(1);
    expect(await countEvents('entry.created')).toBe(1);
  });

  it('20 concurrent presses of the confirm button confirm once and count the referral once', async () => {
    const referrer = await joinLine(stack, pk, 'referrer@example.com');
    await stack.request({ method: 'POST', url: '/public/v1/signups', body: { key: pk, email: 'double-click@example.com', ref: referrer.referralCode } });
    const path = await confirmPath(stack, 'double-click@example.com');
    const confirmedBefore = await countEvents('entry.confirmed');
    const answers = await Promise.all(Array.from({ length: 20 }, () => stack.request({ method: 'POST', url: path })));
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(303));
    expect(await countEvents('entry.confirmed')).toBe(confirmedBefore + 1);
    const entries = stack.db.getRepository(EntryRecord);
    expect(await entries.findOneByOrFail({ id: referrer.id })).toMatchObject({ referrals: 1, lineKey: referrer.lineKey! - 1 });
    expect((await entries.findOneByOrFail({ email: 'double-click@example.com' })).confirmationSeq).toBe(referrer.confirmationSeq! + 1);
  });

  it('concurrent confirmations of different entries get distinct confirmation numbers', async () => {
    const emails = Array.from({ length: 10 }, (_, i) => `parallel-${i}@example.com`);
    await Promise.all(emails.map((email) => stack.request({ method: 'POST', url: '/public/v1/signups', body: { key: pk, email } })));
    const paths = await Promise.all(emails.map((email) => confirmPath(stack, email)));
    await Promise.all(paths.map((path) => stack.request({ method: 'POST', url: path })));
    const rows = await stack.db.getRepository(EntryRecord).find({ where: emails.map((email) => ({ email })) });
    const numbers = rows.map((row) => row.confirmationSeq);
    expect(new Set(numbers).size).toBe(10);
    expect(rows.every((row) => row.state === 'confirmed')).toBe(true);
  });

  it('a change of referral places while referred entries confirm leaves every line key exact', async () => {
    const product = await stack.createProduct();
    const key = product.keys.test.publishable;
    const referrer = await joinLine(stack, key, 'places-referrer@example.com');
    const friends = Array.from({ length: 20 }, (_, i) => `places-friend-${i}@example.com`);
    await Promise.all(friends.map((email) => stack.request({ method: 'POST', url: '/public/v1/signups', body: { key, email, ref: referrer.referralCode } })));
    const paths = await Promise.all(friends.map((email) => confirmPath(stack, email)));
    const products = stack.api.get(ProductsService);
    const settings = (referralPlaces: number) => ({ name: 'Races', senderName: null, inviteUrl: null, signupUrl: null, referralPlaces });
    await Promise.all([
      ...paths.map((path) => stack.request({ method: 'POST', url: path })),
      ...[7, 3, 12, 5].map((places) => products.update(product.id, settings(places))),
    ]);
    const [{ referral_places: places }] = await stack.db.query('SELECT referral_places FROM products WHERE id = $1', [product.id]);
    const rows = await stack.db.getRepository(EntryRecord).findBy({ productId: product.id, state: 'confirmed' });
    expect(rows).toHaveLength(21);
    expect(rows.find((row) => row.id === referrer.id)!.referrals).toBe(20);
    for (const row of rows) expect([row.email, row.lineKey]).toEqual([row.email, row.confirmationSeq! - places * row.referrals - row.movedUp]);
  });
});
