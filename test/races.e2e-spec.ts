import { EntryRecord, EventRecord } from '@app/shared';
import { confirmPath, joinLine } from './support/flows';
import { Stack } from './support/stack';

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
});
