import { Clock, EntryRecord } from '@app/shared';
import { MaintenanceService } from '../apps/api/src/maintenance/maintenance.service';
import { ProductsService, ProductSettings } from '../apps/api/src/products/products.service';
import { bearer, confirmPath, joinLine, signUp } from './support/flows';
import { line } from './support/invitations';
import { Product, Stack } from './support/stack';

interface Referral {
  id: string;
  entryId: string;
  email: string;
  state: 'credited' | 'pending' | 'withheld';
  reasons: string[];
  creditAt: string | null;
}

interface Change { cause: string; places: number; place: number | null; referralId: string | null; reasons: string[] }

describe('referral credit', () => {
  let stack: Stack;
  /** How far the api's clock runs ahead of the machine's: a minute, so that no confirmation here is too fast unless a test says so. */
  let ahead = 60_000;
  let fixedNow: Date | null = null;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api', 'mailer'], env: { RATE_LIMIT_SIGNUP: '10000/1m', RATE_LIMIT_API: '10000/1s' } });
    jest.spyOn(stack.api.get(Clock), 'now').mockImplementation(() => fixedNow ?? new Date(Date.now() + ahead));
  });
  afterEach(() => {
    ahead = 60_000;
    fixedNow = null;
  });
  afterAll(() => stack.stop());

  /** A product of the given protection (the rest of its settings as made). */
  async function productWith(settings: Partial<ProductSettings>): Promise<Product> {
    const product = await stack.createProduct();
    await stack.api.get(ProductsService).update(product.id, settings);
    return product;
  }

  const entry = (email: string) => stack.db.getRepository(EntryRecord).findOneByOrFail({ email });

  /** A sign-up through the referrer's link, confirmed from `ip`. */
  async function referred(product: Product, referrer: EntryRecord, email: string, ip = '198.51.100.7'): Promise<void> {
    await signUp(stack, product.keys.test.publishable, email, referrer.referralCode!);
    const response = await stack.request({ method: 'POST', url: await confirmPath(stack, email), remoteAddress: ip });
    expect(response.status).toBe(303);
  }

  const call = (product: Product, method: 'GET' | 'POST', url: string) => stack.request({ method, url, headers: bearer(product.keys.test.secret) });
  const referralsOf = async (product: Product, id: string): Promise<Referral[]> => (await call(product, 'GET', `/api/v1/entries/${id}/referrals`)).json().data;
  const historyOf = async (product: Product, id: string): Promise<Change[]> => (await call(product, 'GET', `/api/v1/entries/${id}/history`)).json().data;
  const byEmail = (referrals: Referral[]) => Object.fromEntries(referrals.map((referral) => [referral.email, [referral.state, ...referral.reasons]]));
  const placeOf = async (product: Product, id: string): Promise<number> => (await call(product, 'GET', `/api/v1/entries/${id}/place`)).json().place;

  /** The line's rule (libs/shared/src/domain/line.ts) holds for the entry: its key is its number less what it gained. */
  async function expectExactKey(id: string, referralPlaces = 1): Promise<EntryRecord> {
    const record = await stack.db.getRepository(EntryRecord).findOneByOrFail({ id });
    const [{ credited }]: { credited: number }[] = await stack.db.query(`SELECT count(*)::int AS credited FROM referrals WHERE referrer_id = $1 AND state = 'credited'`, [id]);
    expect(record.referrals).toBe(credited);
    expect(record.lineKey).toBe(record.confirmationSeq! - referralPlaces * record.referrals - record.movedUp);
    return record;
  }

  it('with protection off (the default) every referral counts as today: a farm from one network, a disposable domain, a confirmation at once', async () => {
    const product = await stack.createProduct();
    ahead = 0;
    const farmer = await joinLine(stack, product.keys.test.publishable, 'off-farmer@example.com');
    for (let i = 0; i < 8; i++) await referred(product, farmer, `off-friend-${i}@example.com`, `203.0.113.${i + 1}`);
    await referred(product, farmer, 'off-throwaway@mailinator.com', '203.0.113.9');
    await referred(product, farmer, 'off-farmer+again@example.com', '203.0.113.10');

    expect(await expectExactKey(farmer.id)).toMatchObject({ referrals: 9, lineKey: farmer.lineKey! - 9 });
    const referrals = await referralsOf(product, farmer.id);
    expect(referrals).toHaveLength(10);
    expect(byEmail(referrals)).toMatchObject({ 'off-throwaway@mailinator.com': ['credited'], 'off-friend-0@example.com': ['credited'], 'off-farmer+again@example.com': ['withheld', 'own_address'] });
    expect((await call(product, 'GET', `/api/v1/entries/${farmer.id}`)).json().referrals).toBe(9);
  });

  it('a farm of 20 confirmed referrals from one /24 credits the threshold; the rest are withheld for network_velocity', async () => {
    const product = await productWith({ referralProtection: 'standard', velocityLimit: 3 });
    const farmer = await joinLine(stack, product.keys.test.publishable, 'farmer@example.com');
    for (let i = 0; i < 20; i++) await referred(product, farmer, `farm-${i}@example.com`, `203.0.113.${i + 1}`);
    // Another network is another count; an IPv6 /64 is one network.
    await referred(product, farmer, 'elsewhere@example.com', '198.51.100.20');
    for (let i = 0; i < 4; i++) await referred(product, farmer, `six-${i}@example.com`, `2001:db8:1:2::${i + 1}`);

    const referrals = await referralsOf(product, farmer.id);
    const states = byEmail(referrals);
    const farm = Array.from({ length: 20 }, (_, i) => states[`farm-${i}@example.com`]);
    expect(farm.slice(0, 3)).toEqual(Array(3).fill(['credited']));
    expect(farm.slice(3)).toEqual(Array(17).fill(['withheld', 'network_velocity']));
    expect(states['elsewhere@example.com']).toEqual(['credited']);
    expect([0, 1, 2, 3].map((i) => states[`six-${i}@example.com`])).toEqual([['credited'], ['credited'], ['credited'], ['withheld', 'network_velocity']]);
    expect(await expectExactKey(farmer.id)).toMatchObject({ referrals: 7 });
    expect((await call(product, 'GET', `/api/v1/entries/${farmer.id}`)).json().referrals).toBe(7);
  });

  it('a disposable domain, or one on the block list, is withheld; the allow list lets a listed domain through', async () => {
    const product = await productWith({ referralProtection: 'standard', blockedDomains: ['spam.example'], allowedDomains: ['ok.mailinator.com'] });
    const referrer = await joinLine(stack, product.keys.test.publishable, 'host@example.com');
    await referred(product, referrer, 'one@mailinator.com');
    await referred(product, referrer, 'two@inbox.mailinator.com', '198.51.101.1');
    await referred(product, referrer, 'three@spam.example', '198.51.102.1');
    await referred(product, referrer, 'four@ok.mailinator.com', '198.51.103.1');
    expect(byEmail(await referralsOf(product, referrer.id))).toEqual({
      'one@mailinator.com': ['withheld', 'disposable_domain'],
      'two@inbox.mailinator.com': ['withheld', 'disposable_domain'],
      'three@spam.example': ['withheld', 'disposable_domain'],
      'four@ok.mailinator.com': ['credited'],
    });
    expect(await expectExactKey(referrer.id)).toMatchObject({ referrals: 1 });
  });

  it('a confirmation 1 s after its mail was handed over is withheld as too_fast; one 10 s after counts', async () => {
    const product = await productWith({ referralProtection: 'standard' });
    const referrer = await joinLine(stack, product.keys.test.publishable, 'quick-host@example.com');
    const confirmAfter = async (email: string, seconds: number, ip: string) => {
      await signUp(stack, product.keys.test.publishable, email, referrer.referralCode!);
      const path = await confirmPath(stack, email);
      const [{ created_at: mailed }]: { created_at: Date }[] = await stack.db.query(
        `SELECT t.created_at FROM entry_tokens t JOIN entries e ON e.id = t.entry_id WHERE e.email = $1 AND t.purpose = 'confirm'`,
        [email],
      );
      fixedNow = new Date(mailed.getTime() + seconds * 1000);
      expect((await stack.request({ method: 'POST', url: path, remoteAddress: ip })).status).toBe(303);
      fixedNow = null;
    };
    await confirmAfter('bot@example.com', 1, '198.51.100.1');
    await confirmAfter('person@example.com', 10, '198.51.101.1');
    expect(byEmail(await referralsOf(product, referrer.id))).toEqual({ 'bot@example.com': ['withheld', 'too_fast'], 'person@example.com': ['credited'] });
  });

  it('a waiting period shows the referral pending, and the maintenance round credits it on time', async () => {
    const product = await productWith({ referralProtection: 'standard', waitingDays: 2 });
    const [ahead1, referrer] = await line(stack, product.keys.test.publishable, ['wait-first@example.com', 'wait-host@example.com']);
    await referred(product, referrer, 'wait-friend@example.com');
    const [pending] = await referralsOf(product, referrer.id);
    expect(pending).toMatchObject({ state: 'pending', reasons: ['waiting_period'] });
    const due = new Date(pending.creditAt!);
    expect(due.getTime() - Date.now()).toBeGreaterThan(2 * 86_400_000 - 60_000);
    expect(await expectExactKey(referrer.id)).toMatchObject({ referrals: 0 });
    expect((await historyOf(product, referrer.id))[0]).toMatchObject({ cause: 'referral_held', places: 0, referralId: pending.id, reasons: ['waiting_period'] });

    const maintenance = stack.api.get(MaintenanceService);
    fixedNow = new Date(due.getTime() - 1000);
    await maintenance.runOnce();
    expect((await referralsOf(product, referrer.id))[0].state).toBe('pending');
    fixedNow = new Date(due.getTime() + 1000);
    await maintenance.runOnce();
    fixedNow = null;
    expect((await referralsOf(product, referrer.id))[0]).toMatchObject({ state: 'credited', reasons: [] });
    expect(await expectExactKey(referrer.id)).toMatchObject({ referrals: 1 });
    // With one place per referral, #2 ties with #1 and wins the tie: it was moved up.
    expect([await placeOf(product, referrer.id), await placeOf(product, ahead1.id)]).toEqual([1, 2]);
    expect((await historyOf(product, referrer.id))[0]).toMatchObject({ cause: 'referral_credited', places: 1, referralId: pending.id });
  });

  it('a waiting period until the referred entry is invited credits it once the invitation is out', async () => {
    const product = await productWith({ referralProtection: 'standard', waitingFor: 'invited' });
    const referrer = await joinLine(stack, product.keys.test.publishable, 'invite-host@example.com');
    await referred(product, referrer, 'invite-friend@example.com');
    expect((await referralsOf(product, referrer.id))[0]).toMatchObject({ state: 'pending', reasons: ['waiting_period'], creditAt: null });
    const maintenance = stack.api.get(MaintenanceService);
    await maintenance.runOnce();
    expect((await referralsOf(product, referrer.id))[0].state).toBe('pending');
    const friend = await entry('invite-friend@example.com');
    await stack.db.query(`UPDATE entries SET state = 'invited', invited_at = now() WHERE id = $1`, [friend.id]);
    await maintenance.runOnce();
    expect((await referralsOf(product, referrer.id))[0].state).toBe('credited');
    expect(await expectExactKey(referrer.id)).toMatchObject({ referrals: 1 });
  });

  it('a team grant moves the referrer up at once and the history says so; a revoke moves it back', async () => {
    const product = await productWith({ referralProtection: 'standard', referralPlaces: 2 });
    const entries = await line(stack, product.keys.test.publishable, ['g1@example.com', 'g2@example.com', 'g3@example.com', 'g-host@example.com']);
    const referrer = entries[3];
    await referred(product, referrer, 'g-friend@mailinator.com');
    const [withheld] = await referralsOf(product, referrer.id);
    expect(withheld).toMatchObject({ state: 'withheld', reasons: ['disposable_domain'] });
    expect(await placeOf(product, referrer.id)).toBe(4);

    const granted = await call(product, 'POST', `/api/v1/entries/${referrer.id}/referrals/${withheld.id}/grant`);
    expect(granted.status).toBe(200);
    expect(granted.json()).toMatchObject({ id: withheld.id, state: 'credited', reasons: ['disposable_domain', 'granted_by_team'] });
    expect(await placeOf(product, referrer.id)).toBe(2);
    expect(await expectExactKey(referrer.id, 2)).toMatchObject({ referrals: 1 });
    expect((await call(product, 'GET', `/api/v1/entries/${referrer.id}`)).json().referrals).toBe(1);
    expect((await historyOf(product, referrer.id))[0]).toMatchObject({ cause: 'referral_granted', places: 2, referralId: withheld.id });
    // Granting again changes nothing.
    expect((await call(product, 'POST', `/api/v1/entries/${referrer.id}/referrals/${withheld.id}/grant`)).json().state).toBe('credited');
    expect(await expectExactKey(referrer.id, 2)).toMatchObject({ referrals: 1 });

    const revoked = await call(product, 'POST', `/api/v1/entries/${referrer.id}/referrals/${withheld.id}/revoke`);
    expect(revoked.json()).toMatchObject({ state: 'withheld', reasons: ['disposable_domain', 'revoked_by_team'] });
    expect(await placeOf(product, referrer.id)).toBe(4);
    expect(await expectExactKey(referrer.id, 2)).toMatchObject({ referrals: 0 });
    const history = await historyOf(product, referrer.id);
    expect(history.slice(0, 4).map((change) => [change.cause, change.places])).toEqual([
      ['referral_revoked', -2],
      ['referral_granted', 2],
      ['referral_withheld', 0],
      ['joined', 0],
    ]);
    expect(history[3].place).toBe(4);
  });

  it("the person's status page says in words what friends did, counting held credit without a reason", async () => {
    const product = await productWith({ referralProtection: 'standard', referralPlaces: 2 });
    const [, referrer] = await line(stack, product.keys.test.publishable, ['w1@example.com', 'w-host@example.com']);
    const statusPage = async () => (await stack.request({ method: 'GET', url: await confirmPath(stack, 'w-host@example.com') })).text;
    expect(await statusPage()).not.toMatch(/moved you up|being checked/);

    await referred(product, referrer, 'w-friend@example.org');
    await referred(product, referrer, 'w-held@mailinator.com');
    await referred(product, referrer, 'w-refused@mailinator.com');
    const refused = (await referralsOf(product, referrer.id)).find((referral) => referral.email === 'w-refused@mailinator.com')!;
    expect((await call(product, 'POST', `/api/v1/entries/${referrer.id}/referrals/${refused.id}/revoke`)).status).toBe(200);

    // A revoke is the team's last word: the person is not told of it, nor why credit is held.
    const page = await statusPage();
    expect(page).toContain('1 friend moved you up 2 places; 1 is still being checked.');
    expect(page).not.toMatch(/disposable|withheld|revoked|mailinator/);
  });

  it('grant and revoke answer 404 for a referral of another entry or product, and 409 for one not confirmed yet', async () => {
    const product = await productWith({ referralProtection: 'standard' });
    const [one, other] = await line(stack, product.keys.test.publishable, ['e404-a@example.com', 'e404-b@example.com']);
    await referred(product, one, 'e404-friend@example.com');
    const [referral] = await referralsOf(product, one.id);
    expect((await call(product, 'POST', `/api/v1/entries/${other.id}/referrals/${referral.id}/grant`)).json().error.code).toBe('not_found');
    expect((await call(product, 'POST', `/api/v1/entries/${one.id}/referrals/rfl_nosuchreferral/revoke`)).status).toBe(404);
    expect((await call(product, 'GET', `/api/v1/entries/ent_nosuchentry/referrals`)).status).toBe(404);
    const stranger = await stack.createProduct();
    expect((await call(stranger, 'POST', `/api/v1/entries/${one.id}/referrals/${referral.id}/revoke`)).status).toBe(404);

    await signUp(stack, product.keys.test.publishable, 'e404-later@example.com', one.referralCode!);
    const unconfirmed = (await referralsOf(product, one.id)).find((item) => item.email === 'e404-later@example.com')!;
    expect(unconfirmed).toMatchObject({ state: 'pending', reasons: ['not_confirmed'] });
    const refused = await call(product, 'POST', `/api/v1/entries/${one.id}/referrals/${unconfirmed.id}/grant`);
    expect([refused.status, refused.json().error.code]).toEqual([409, 'not_confirmed']);
  });

  it('concurrent grants and revokes leave a consistent count and line', async () => {
    const product = await productWith({ referralProtection: 'standard', referralPlaces: 3 });
    const referrer = await joinLine(stack, product.keys.test.publishable, 'race-host@example.com');
    for (let i = 0; i < 3; i++) await referred(product, referrer, `race-${i}@mailinator.com`, `198.51.${110 + i}.1`);
    const ids = (await referralsOf(product, referrer.id)).map((referral) => referral.id);
    const calls = Array.from({ length: 60 }, (_, i) =>
      call(product, 'POST', `/api/v1/entries/${referrer.id}/referrals/${ids[i % 3]}/${(i * 7) % 5 < 2 ? 'revoke' : 'grant'}`),
    );
    expect(new Set((await Promise.all(calls)).map((answer) => answer.status))).toEqual(new Set([200]));
    const record = await expectExactKey(referrer.id, 3);
    const history = await historyOf(product, referrer.id);
    const gained = history.reduce((sum, change) => sum + change.places, 0);
    expect(gained).toBe(3 * record.referrals);
  });

  it("a change of the product's referral places is in the history of each waiting entry it moves, and the history adds up to the key", async () => {
    const product = await stack.createProduct();
    const [referrer, plain, referredInvited] = await line(stack, product.keys.test.publishable, ['rp-host@example.com', 'rp-plain@example.com', 'rp-invited@example.com']);
    await referred(product, referrer, 'rp-friend-1@example.com');
    await referred(product, referrer, 'rp-friend-2@example.com');
    await referred(product, referredInvited, 'rp-friend-3@example.com');
    expect((await call(product, 'POST', `/api/v1/entries/${referredInvited.id}/invite`)).status).toBe(200);

    const products = stack.api.get(ProductsService);
    await products.update(product.id, { referralPlaces: 3 });
    await products.update(product.id, { referralPlaces: 3 });
    await products.update(product.id, { referralPlaces: 0 });
    expect((await historyOf(product, referrer.id)).slice(0, 2).map((change) => [change.cause, change.places])).toEqual([
      ['referral_places_changed', -6],
      ['referral_places_changed', 4],
    ]);
    // Its key did not move: no referrals, or no longer waiting.
    for (const unmoved of [plain, referredInvited]) {
      expect((await historyOf(product, unmoved.id)).map((change) => change.cause)).not.toContain('referral_places_changed');
    }
    const record = await expectExactKey(referrer.id, 0);
    expect((await historyOf(product, referrer.id)).reduce((sum, change) => sum + change.places, 0)).toBe(record.confirmationSeq! - record.lineKey!);
  });

  it('the history records joining the line at its place and each move-up', async () => {
    const product = await stack.createProduct();
    const [, second] = await line(stack, product.keys.test.publishable, ['h1@example.com', 'h2@example.com']);
    expect((await call(product, 'POST', `/api/v1/entries/${second.id}/move-up`)).status).toBe(400);
    await stack.request({ method: 'POST', url: `/api/v1/entries/${second.id}/move-up`, headers: bearer(product.keys.test.secret), body: { places: 5 } });
    expect((await historyOf(product, second.id)).map((change) => [change.cause, change.places, change.place])).toEqual([
      ['moved_up', 5, null],
      ['joined', 0, 2],
    ]);
    expect((await call(product, 'GET', '/api/v1/entries/ent_nosuchentry/history')).status).toBe(404);
  });
});
