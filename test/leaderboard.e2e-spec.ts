import { Clock, EntryRecord } from '@app/shared';
import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { LEADERBOARD_CACHE_MS } from '../apps/api/src/leaderboard/leaderboard.service';
import type { ProductSettings } from '../apps/api/src/products/products.service';
import { PASSWORD, signIn } from './support/dashboard';
import { bearer, confirmPath, joinLine, productWith as productWithSettings, referredFrom } from './support/flows';
import { Product, Stack } from './support/stack';

interface Leader {
  rank: number;
  email: string;
  referrals: number;
}

/** A masked address: the first letter of the local part and of the domain's first label, then the top-level domain. */
const MASKED = /^[^•@]•••@[^•.]•••\.[a-z]+$/;

describe('leaderboard', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api', 'mailer'], env: { RATE_LIMIT_SIGNUP: '10000/1m', RATE_LIMIT_API: '10000/1s' } });
    // A minute ahead, so that no confirmation here is too fast for standard protection.
    jest.spyOn(stack.api.get(Clock), 'now').mockImplementation(() => new Date(Date.now() + 60_000));
  });
  afterAll(() => stack.stop());

  const productWith = (settings: Partial<ProductSettings>) => productWithSettings(stack, settings);
  const referred = (product: Product, referrer: EntryRecord, email: string, ip: string) => referredFrom(stack, product, referrer, email, ip);

  const board = (key: string) => stack.request({ method: 'GET', url: `/public/v1/leaderboard?key=${encodeURIComponent(key)}` });

  it('lists the top referrers by credited referrals, ties to who got there first, every address masked', async () => {
    const product = await productWith({ leaderboard: 'test', leaderboardSize: 3 });
    const key = product.keys.test.publishable;
    const first = await joinLine(stack, key, 'ada.lovelace@gmail.com');
    const second = await joinLine(stack, key, 'bob@example.co.uk');
    const third = await joinLine(stack, key, 'cy@mail.example.org');
    const fourth = await joinLine(stack, key, 'dan@example.com');
    await joinLine(stack, key, 'nobody@example.com');
    let n = 0;
    const friends = async (referrer: EntryRecord, count: number) => {
      for (let i = 0; i < count; i++) await referred(product, referrer, `friend-${n++}@example.net`, `198.51.${n}.1`);
    };
    await friends(third, 3);
    await friends(second, 1);
    await friends(first, 1);
    await friends(fourth, 1);

    const answer = await board(key);
    expect(answer.status).toBe(200);
    expect(answer.headers['access-control-allow-origin']).toBe('*');
    const leaders: Leader[] = answer.json().data;
    expect(leaders.map(({ rank, email, referrals }) => [rank, email, referrals])).toEqual([
      [1, 'c•••@m•••.org', 3],
      [2, 'a•••@g•••.com', 1],
      [3, 'b•••@e•••.uk', 1],
    ]);
    for (const leader of leaders) expect(leader.email).toMatch(MASKED);
    expect(answer.text).not.toMatch(/lovelace|bob@|example|gmail/);
  });

  it('answers 404 not_found for a product or mode that did not opt in, and 401 for an unknown key', async () => {
    const off = await stack.createProduct();
    await joinLine(stack, off.keys.test.publishable, 'off-host@example.com');
    const answer = await board(off.keys.test.publishable);
    expect([answer.status, answer.json().error.code]).toEqual([404, 'not_found']);
    const testOnly = await productWith({ leaderboard: 'test' });
    expect((await board(testOnly.keys.live.publishable)).status).toBe(404);
    expect((await board(testOnly.keys.test.publishable)).status).toBe(200);
    expect((await board('pk_test_nosuchkey')).status).toBe(401);
  });

  it('a team grant shows on the leaderboard once the board read before it is LEADERBOARD_CACHE_MS old', async () => {
    const product = await productWith({ leaderboard: 'both', referralProtection: 'standard' });
    const referrer = await joinLine(stack, product.keys.test.publishable, 'grace@example.com');
    await referred(product, referrer, 'throwaway@mailinator.com', '198.51.200.1');
    expect((await board(product.keys.test.publishable)).json().data).toEqual([]);
    const [withheld] = (await stack.request({ method: 'GET', url: `/api/v1/entries/${referrer.id}/referrals`, headers: bearer(product.keys.test.secret) })).json().data;
    const granted = await stack.request({ method: 'POST', url: `/api/v1/entries/${referrer.id}/referrals/${withheld.id}/grant`, headers: bearer(product.keys.test.secret) });
    expect(granted.status).toBe(200);
    // On the api's clock, not the wall clock: the board read before the grant was read earlier than now.
    jest.spyOn(Date, 'now').mockReturnValue(Date.now() + LEADERBOARD_CACHE_MS);
    try {
      expect((await board(product.keys.test.publishable)).json().data).toEqual([{ rank: 1, email: 'g•••@e•••.com', referrals: 1 }]);
    } finally {
      jest.mocked(Date.now).mockRestore();
    }
  });

  it('the status page shows the leaderboard masked; the dashboard shows it to the team unmasked', async () => {
    const product = await productWith({ leaderboard: 'test' });
    const host = await joinLine(stack, product.keys.test.publishable, 'heidi@example.com');
    await referred(product, host, 'ivan@example.com', '198.51.201.1');
    const status = await stack.request({ method: 'GET', url: await confirmPath(stack, 'ivan@example.com') });
    expect(status.text).toContain('Leaderboard');
    expect(status.text).toContain('h•••@e•••.com');
    expect(status.text).not.toContain('heidi@');

    await stack.api.get(DashboardAuthService).createUser('team@example.com', PASSWORD, product.id);
    const { cookie } = await signIn(stack, 'team@example.com');
    const page = await stack.request({ method: 'GET', url: `/dashboard/${product.id}/test/referrals`, headers: { cookie } });
    expect(page.status).toBe(200);
    expect(page.text).toContain('Leaderboard');
    expect(page.text).toContain('heidi@example.com');
  });

  it("the embeddable form's result, the check-your-inbox page, shows the leaderboard masked in a mode that shows it, and none in the other", async () => {
    const product = await productWith({ leaderboard: 'test' });
    const host = await joinLine(stack, product.keys.test.publishable, 'judy@example.com');
    await referred(product, host, 'karl@example.com', '198.51.202.1');
    const sent = await stack.request({ method: 'GET', url: `/w/${product.keys.test.publishable}/sent` });
    expect(sent.status).toBe(200);
    expect(sent.text).toContain('Check your inbox');
    expect(sent.text).toContain('Leaderboard');
    expect(sent.text).toContain('j•••@e•••.com: 1 friend');
    expect(sent.text).not.toContain('judy@');

    const live = await stack.request({ method: 'GET', url: `/w/${product.keys.live.publishable}/sent` });
    expect(live.text).toContain('Check your inbox');
    expect(live.text).not.toContain('Leaderboard');
  });
});
