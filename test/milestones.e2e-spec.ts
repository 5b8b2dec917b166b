import { Clock, EntryRecord } from '@app/shared';
import { ProductsService, ProductSettings } from '../apps/api/src/products/products.service';
import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { WebhooksService } from '../apps/api/src/webhooks/webhooks.service';
import { form, PASSWORD, signIn } from './support/dashboard';
import { bearer, confirmPath, joinLine, productWith as productWithSettings, referredFrom } from './support/flows';
import { line } from './support/invitations';
import { Receiver, verify } from './support/receiver';
import { Product, Stack } from './support/stack';

const MILESTONES = [
  { referrals: 1, name: 'First friend', places: 2, message: 'Two places up for your first friend' },
  { referrals: 2, name: 'Two friends', places: 0, message: null },
];

describe('milestone rewards', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await Stack.start({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', RATE_LIMIT_SIGNUP: '10000/1m', RATE_LIMIT_API: '10000/1s' } });
    // A minute ahead, so that no confirmation here is too fast for standard protection.
    jest.spyOn(stack.api.get(Clock), 'now').mockImplementation(() => new Date(Date.now() + 60_000));
  });
  afterAll(() => stack.stop());

  const productWith = (settings: Partial<ProductSettings>) => productWithSettings(stack, settings);
  const referred = (product: Product, referrer: EntryRecord, email: string, ip: string) => referredFrom(stack, product, referrer, email, ip);

  const call = (product: Product, url: string) => stack.request({ method: 'POST', url, headers: bearer(product.keys.test.secret) });

  it('entry.milestone arrives once per entry and milestone across revoke and re-grant, signed, and its places move the referrer up', async () => {
    const product = await productWith({ referralProtection: 'standard', milestones: MILESTONES });
    const receiver = await new Receiver().start();
    try {
      const hook = await stack.api.get(WebhooksService).create({ productId: product.id, mode: 'test', url: receiver.url, events: ['entry.milestone'] });
      const entries = await line(stack, product.keys.test.publishable, ['m1@example.com', 'm2@example.com', 'm3@example.com', 'm4@example.com', 'm-host@example.com']);
      const host = entries[4];
      await referred(product, host, 'm-friend@mailinator.com', '198.51.100.1');
      const [withheld] = (await stack.request({ method: 'GET', url: `/api/v1/entries/${host.id}/referrals`, headers: bearer(product.keys.test.secret) })).json().data;
      expect(withheld.state).toBe('withheld');

      const grant = `/api/v1/entries/${host.id}/referrals/${withheld.id}/grant`;
      expect((await call(product, grant)).status).toBe(200);
      const [delivery] = await receiver.waitFor(1);
      expect(verify(String(delivery.headers['service-signature']), delivery.body, hook.secret)).toBe(true);
      const event = JSON.parse(delivery.body);
      expect(event).toMatchObject({ type: 'entry.milestone', data: { entry: { id: host.id, referrals: 1 }, milestone: { referrals: 1, name: 'First friend', places: 2, message: 'Two places up for your first friend' } } });
      // #5 with one referral place and two milestone places: three up.
      expect((await stack.request({ method: 'GET', url: `/api/v1/entries/${host.id}/place`, headers: bearer(product.keys.test.secret) })).json().place).toBe(2);
      const history = (await stack.request({ method: 'GET', url: `/api/v1/entries/${host.id}/history`, headers: bearer(product.keys.test.secret) })).json().data;
      expect(history.slice(0, 2).map((change: { cause: string; places: number }) => [change.cause, change.places])).toEqual([
        ['milestone', 2],
        ['referral_granted', 1],
      ]);

      expect((await call(product, `/api/v1/entries/${host.id}/referrals/${withheld.id}/revoke`)).status).toBe(200);
      expect((await call(product, grant)).status).toBe(200);
      // A second milestone reached later arrives; the first never again.
      await referred(product, host, 'm-second@example.com', '198.51.101.1');
      await receiver.waitFor(2);
      const [{ count }]: { count: number }[] = await stack.db.query(`SELECT count(*)::int AS count FROM events WHERE product_id = $1 AND type = 'entry.milestone'`, [product.id]);
      expect(count).toBe(2);
      const names = receiver.received.map((received) => JSON.parse(received.body).data.milestone.name);
      expect(names).toEqual(['First friend', 'Two friends']);

      // The status page and the dashboard count show it.
      const status = await stack.request({ method: 'GET', url: await confirmPath(stack, 'm-host@example.com') });
      expect(status.text).toContain('First friend');
      expect(status.text).toContain('Two places up for your first friend');
    } finally {
      await receiver.stop();
    }
  });

  it('an entry no longer waiting reaches a milestone and its event names the milestone\'s places, but it does not move', async () => {
    const product = await productWith({ milestones: MILESTONES });
    const receiver = await new Receiver().start();
    try {
      await stack.api.get(WebhooksService).create({ productId: product.id, mode: 'test', url: receiver.url, events: ['entry.milestone'] });
      const host = await joinLine(stack, product.keys.test.publishable, 'invited-host@example.com');
      expect((await call(product, `/api/v1/entries/${host.id}/invite`)).status).toBe(200);
      await referred(product, host, 'invited-friend@example.com', '198.51.100.2');

      const [delivery] = await receiver.waitFor(1);
      expect(JSON.parse(delivery.body)).toMatchObject({ data: { entry: { id: host.id, state: 'invited', referrals: 1 }, milestone: { name: 'First friend', places: 2 } } });
      const history = (await stack.request({ method: 'GET', url: `/api/v1/entries/${host.id}/history`, headers: bearer(product.keys.test.secret) })).json().data;
      expect(history.map((change: { cause: string }) => change.cause)).not.toContain('milestone');
    } finally {
      await receiver.stop();
    }
  });

  it('the settings page saves milestones and the leaderboard; the entry page lists what was reached and the overview counts it', async () => {
    const product = await stack.createProduct();
    await stack.api.get(DashboardAuthService).createUser('milestone-team@example.com', PASSWORD, product.id);
    const { cookie, csrf } = await signIn(stack, 'milestone-team@example.com');
    // The milestones' builder: a row of fields a milestone.
    const settings = `/dashboard/${product.id}/test/settings/leaderboard`;
    const rows = { 'milestones.0.referrals': '1', 'milestones.0.name': 'First friend', 'milestones.0.places': '3', 'milestones.0.message': 'Three places up', 'milestones.1.referrals': '5', 'milestones.1.name': 'Five friends' };
    const fields = { _csrf: csrf, leaderboard: 'both', leaderboardSize: '20', ...rows };
    const saved = await stack.request({ method: 'POST', url: settings, headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: form(fields) });
    expect(saved.status).toBe(303);
    const page = (await stack.request({ method: 'GET', url: settings, headers: { cookie } })).text;
    expect(page).toContain('name="milestones.0.message" type="text" value="Three places up"');
    expect(page).toContain('name="milestones.1.name" type="text" value="Five friends"');
    expect(await stack.api.get(ProductsService).find(product.id)).toMatchObject({
      leaderboard: 'both',
      leaderboardSize: 20,
      milestones: [
        { referrals: 1, name: 'First friend', places: 3, message: 'Three places up' },
        { referrals: 5, name: 'Five friends', places: 0, message: null },
      ],
    });
    const refused = await stack.request({ method: 'POST', url: settings, headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: form({ ...fields, 'milestones.0.referrals': '5' }) });
    expect(refused.text).toContain('Each number of referrals may have one milestone');

    const host = await joinLine(stack, product.keys.test.publishable, 'dash-host@example.com');
    await referred(product, host, 'dash-friend@example.com', '198.51.103.1');
    const entryPage = (await stack.request({ method: 'GET', url: `/dashboard/${product.id}/test/entries/${host.id}`, headers: { cookie } })).text;
    expect(entryPage).toContain('Milestones reached');
    expect(entryPage).toContain('First friend');
    expect(entryPage).toContain('Reached a milestone, up 3 places');
    const overview = (await stack.request({ method: 'GET', url: `/dashboard/${product.id}/test/overview`, headers: { cookie } })).text;
    expect(overview).toMatch(/Milestones reached<\/div><div class="count">1</);
  });

  it('a product without milestones (the default) emits no entry.milestone', async () => {
    const product = await stack.createProduct();
    const host = await joinLine(stack, product.keys.test.publishable, 'plain-host@example.com');
    await referred(product, host, 'plain-friend@example.com', '198.51.102.1');
    const [{ count }]: { count: number }[] = await stack.db.query(`SELECT count(*)::int AS count FROM events WHERE product_id = $1 AND type = 'entry.milestone'`, [product.id]);
    expect(count).toBe(0);
  });
});
