import { Clock, EntryRecord } from '@app/shared';
import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { ProductsService, ProductSettings } from '../apps/api/src/products/products.service';
import { PASSWORD, form, signIn } from './support/dashboard';
import { bearer, confirmPath, joinLine, signUp } from './support/flows';
import { parseExposition, Sample } from './support/prometheus';
import { Product, Stack } from './support/stack';

const TOKEN = 'metrics-token-0123456789';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

/** Issue 35, item 2: the honeypot and the minimum fill time of the forms, and the referral burst cap. */
describe('cheap bot signals', () => {
  let stack: Stack;
  /** How far the api's clock runs ahead of the machine's. */
  let ahead = 0;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api', 'mailer'], env: { METRICS_TOKEN: TOKEN, RATE_LIMIT_SIGNUP: '10000/1m', RATE_LIMIT_API: '10000/1s' } });
    jest.spyOn(stack.api.get(Clock), 'now').mockImplementation(() => new Date(Date.now() + ahead));
  });
  afterEach(() => {
    ahead = 0;
  });
  afterAll(() => stack.stop());

  async function productWith(settings: Partial<ProductSettings>): Promise<Product> {
    const product = await stack.createProduct();
    await stack.api.get(ProductsService).update(product.id, settings);
    return product;
  }

  /** Entries of this address (a sign-up's mail and event are written in the statement that writes its entry). */
  const kept = (email: string) => stack.db.getRepository(EntryRecord).countBy({ email });
  const eventsOf = async (product: Product): Promise<number> =>
    (await stack.db.query(`SELECT count(*)::int AS n FROM events WHERE product_id = $1`, [product.id]))[0].n;

  const refused = async (): Promise<Sample[]> => {
    const answer = await stack.request({ method: 'GET', url: '/metrics', headers: bearer(TOKEN) });
    return parseExposition(answer.text).filter((sample) => sample.name === 'waitlist_signups_refused_total');
  };
  const refusedFor = (samples: Sample[], reason: string) => samples.find((sample) => sample.labels.reason === reason)?.value ?? NaN;

  /** The hosted form's fields as the page renders them. */
  async function hostedForm(pk: string): Promise<{ page: string; token: string | undefined }> {
    const page = (await stack.request({ method: 'GET', url: `/w/${pk}` })).text;
    return { page, token: /name="formToken" value="([^"]+)"/.exec(page)?.[1] };
  }

  const postForm = (fields: Record<string, string>) => stack.request({ method: 'POST', url: '/public/v1/signups', headers: FORM, payload: form(fields) });
  const postJson = (body: Record<string, unknown>) => stack.request({ method: 'POST', url: '/public/v1/signups', body });
  /** The parts of an answer a client can tell apart. */
  const answerOf = (response: Awaited<ReturnType<typeof postForm>>) => ({
    status: response.status,
    location: response.headers.location,
    type: response.headers['content-type'],
    body: response.text,
  });

  it('while off (the default), the forms carry no trap and a sign-up with the fields filled is stored as SPEC.md says', async () => {
    const product = await stack.createProduct();
    const pk = product.keys.test.publishable;
    const { page, token } = await hostedForm(pk);
    expect(page).not.toContain('name="website"');
    expect(token).toBeUndefined();
    const words = (await stack.request({ method: 'GET', url: `/public/v1/forms/${pk}` })).json();
    expect(words).not.toHaveProperty('formToken');
    expect(words).not.toHaveProperty('honeypot');
    expect((await postJson({ key: pk, email: 'off-json@example.com', website: 'http://spam.example', formToken: 'forged' })).json()).toEqual({ status: 'received' });
    expect(answerOf(await postForm({ key: pk, email: 'off-form@example.com', website: 'x' }))).toMatchObject({ status: 303, location: `/w/${pk}/sent` });
    expect([await kept('off-json@example.com'), await kept('off-form@example.com'), await eventsOf(product)]).toEqual([1, 1, 2]);
    await stack.mail.waitFor('off-json@example.com');
    await stack.mail.waitFor('off-form@example.com');
  });

  it("the dashboard's settings set them, show them, and refuse a bad one in words", async () => {
    const product = await stack.createProduct();
    await stack.api.get(DashboardAuthService).createUser('settings-team@example.com', PASSWORD, product.id);
    const { cookie, csrf } = await signIn(stack, 'settings-team@example.com');
    // The signals are under bot defence; the referral burst cap under referral protection.
    const url = `/dashboard/${product.id}/test/settings/bot-defence`;
    const protection = `/dashboard/${product.id}/test/settings/protection`;
    const save = (fields: Record<string, string>, to = url) => stack.request({ method: 'POST', url: to, headers: { cookie, ...FORM }, payload: form({ _csrf: csrf, ...fields }) });
    const page = (await stack.request({ method: 'GET', url, headers: { cookie } })).text;
    expect(page).toContain('<option value="off" selected>Off</option>');
    expect(page).toMatch(/id="signupMinFillSeconds" name="signupMinFillSeconds" type="number" value="0"/);
    expect((await save({ signupHoneypot: 'on', signupMinFillSeconds: '3' })).status).toBe(303);
    expect((await save({ referralProtection: 'standard', burstPerHour: '20' }, protection)).status).toBe(303);
    const saved = await stack.db.query('SELECT signup_honeypot, signup_min_fill_seconds, referral_rules FROM products WHERE id = $1', [product.id]);
    expect(saved).toEqual([{ signup_honeypot: true, signup_min_fill_seconds: 3, referral_rules: { burstPerHour: 20 } }]);
    const shown = (await stack.request({ method: 'GET', url, headers: { cookie } })).text;
    expect(shown).toContain('<option value="on" selected>On</option>');
    expect(shown).toMatch(/name="signupMinFillSeconds" type="number" value="3"/);
    expect((await stack.request({ method: 'GET', url: protection, headers: { cookie } })).text).toMatch(/name="burstPerHour" type="number" value="20"/);
    for (const [fields, words] of [
      [{ signupMinFillSeconds: '3601' }, 'The minimum fill time must be a whole number of seconds from 0 to 3600'],
      [{ signupHoneypot: 'maybe' }, 'The honeypot must be off or on'],
      [{ referralProtection: 'standard', burstPerHour: '0' }, 'The sign-ups per link an hour must be a whole number from 1'],
    ] as [Record<string, string>, string][]) {
      const refused = await save(fields, 'burstPerHour' in fields ? protection : url);
      expect([fields, refused.status]).toEqual([fields, 400]);
      expect(refused.text).toContain(words);
    }
    expect(await stack.db.query('SELECT signup_honeypot, signup_min_fill_seconds, referral_rules FROM products WHERE id = $1', [product.id])).toEqual(saved);
  });

  it('the honeypot and fill time store and mail nothing yet answer as usual', async () => {
    const product = await productWith({ signupHoneypot: true, signupMinFillSeconds: 5 });
    const pk = product.keys.test.publishable;
    const before = await refused();
    const { page, token } = await hostedForm(pk);
    // Hidden from people: off-screen, out of the accessibility tree and the tab order, never filled in by the browser.
    const trap = /<div aria-hidden="true" style="position:absolute;left:-10000px;[^"]*">.*?<input[^>]*name="website"[^>]*>/s.exec(page)?.[0];
    expect(trap).toBeDefined();
    expect(trap).toContain('tabindex="-1"');
    expect(trap).toContain('autocomplete="off"');
    expect(token).toBeDefined();

    ahead = 10_000;
    const person = answerOf(await postForm({ key: pk, email: 'person@example.com', website: '', formToken: token! }));
    const honeypot = answerOf(await postForm({ key: pk, email: 'honey@example.com', website: 'http://spam.example', formToken: token! }));
    const forged = answerOf(await postForm({ key: pk, email: 'forged@example.com', website: '', formToken: `${token!.slice(0, -2)}xx` }));
    const otherProduct = (await hostedForm((await productWith({ signupMinFillSeconds: 5 })).keys.test.publishable)).token!;
    const elsewhere = answerOf(await postForm({ key: pk, email: 'elsewhere@example.com', formToken: otherProduct }));
    ahead = 1_000;
    const quick = answerOf(await postForm({ key: pk, email: 'quick@example.com', website: '', formToken: token! }));
    expect(person).toMatchObject({ status: 303, location: `/w/${pk}/sent` });
    for (const answer of [honeypot, forged, elsewhere, quick]) expect(answer).toEqual(person);

    // The JSON sign-up: the script-tag form's words carry a token; without one (a product's own server) it is not timed.
    const words = (await stack.request({ method: 'GET', url: `/public/v1/forms/${pk}` })).json();
    expect(words).toMatchObject({ honeypot: true, formToken: expect.any(String) });
    const jsonPerson = await postJson({ key: pk, email: 'server@example.com' });
    const jsonBot = await postJson({ key: pk, email: 'json-bot@example.com', website: 'x' });
    const jsonQuick = await postJson({ key: pk, email: 'json-quick@example.com', formToken: words.formToken });
    for (const answer of [jsonBot, jsonQuick]) expect(answerOf(answer)).toEqual(answerOf(jsonPerson));
    expect(jsonPerson.json()).toEqual({ status: 'received' });

    expect([await kept('person@example.com'), await kept('server@example.com'), await eventsOf(product)]).toEqual([1, 1, 2]);
    for (const email of ['honey@example.com', 'forged@example.com', 'elsewhere@example.com', 'quick@example.com', 'json-bot@example.com', 'json-quick@example.com']) {
      expect({ email, kept: await kept(email) }).toEqual({ email, kept: 0 });
    }
    await stack.mail.waitFor('person@example.com');
    await stack.mail.waitFor('server@example.com');
    expect(stack.mail.mails.filter((mail) => /honey|forged|elsewhere|quick|json-bot/.test(mail.to))).toEqual([]);

    const after = await refused();
    expect(refusedFor(after, 'honeypot') - refusedFor(before, 'honeypot')).toBe(2);
    expect(refusedFor(after, 'fill_time') - refusedFor(before, 'fill_time')).toBe(4);

    await stack.api.get(DashboardAuthService).createUser('signals-team@example.com', PASSWORD, product.id);
    const { cookie } = await signIn(stack, 'signals-team@example.com');
    const overview = (await stack.request({ method: 'GET', url: `/dashboard/${product.id}/test/overview`, headers: { cookie } })).text;
    expect(overview).toMatch(/Refused sign-ups, last 30 days[\s\S]*honeypot[^<]*<\/td><td[^>]*>2<[\s\S]*minimum fill time[^<]*<\/td><td[^>]*>4</);
  });

  it('a referral burst is held', async () => {
    const product = await productWith({ referralProtection: 'standard', burstPerHour: 3 });
    const pk = product.keys.test.publishable;
    ahead = 60_000;
    const referrer = await joinLine(stack, pk, 'burst-host@example.com');
    const referred = async (email: string, ip: string) => {
      await signUp(stack, pk, email, referrer.referralCode!);
      expect((await stack.request({ method: 'POST', url: await confirmPath(stack, email), remoteAddress: ip })).status).toBe(303);
    };
    for (let i = 0; i < 5; i++) await referred(`burst-${i}@example.com`, `203.0.${113 + i}.1`);
    // An hour after the burst, the link has room again.
    ahead = 60_000 + 3_700_000;
    await referred('later@example.com', '198.51.100.1');

    const { data } = (await stack.request({ method: 'GET', url: `/api/v1/entries/${referrer.id}/referrals`, headers: bearer(product.keys.test.secret) })).json();
    const states = Object.fromEntries(data.map((referral: { email: string; state: string; reasons: string[] }) => [referral.email, [referral.state, ...referral.reasons]]));
    expect(states).toEqual({
      'burst-0@example.com': ['credited'],
      'burst-1@example.com': ['credited'],
      'burst-2@example.com': ['credited'],
      'burst-3@example.com': ['withheld', 'referral_burst'],
      'burst-4@example.com': ['withheld', 'referral_burst'],
      'later@example.com': ['credited'],
    });
    expect(await stack.db.getRepository(EntryRecord).findOneByOrFail({ id: referrer.id })).toMatchObject({ referrals: 4 });

    await stack.api.get(DashboardAuthService).createUser('burst-team@example.com', PASSWORD, product.id);
    const { cookie, csrf } = await signIn(stack, 'burst-team@example.com');
    const review = (await stack.request({ method: 'GET', url: `/dashboard/${product.id}/test/referrals`, headers: { cookie } })).text;
    expect(review.match(/too many sign-ups through one link in an hour/g)).toHaveLength(2);
    const held = data.find((referral: { email: string }) => referral.email === 'burst-3@example.com');
    const granted = await stack.request({
      method: 'POST',
      url: `/dashboard/${product.id}/test/entries/${referrer.id}/referrals/${held.id}/grant?back=review`,
      headers: { cookie, ...FORM },
      payload: form({ _csrf: csrf }),
    });
    expect(granted.status).toBe(303);
    expect(await stack.db.getRepository(EntryRecord).findOneByOrFail({ id: referrer.id })).toMatchObject({ referrals: 5 });

    const overview = (await stack.request({ method: 'GET', url: `/dashboard/${product.id}/test/overview`, headers: { cookie } })).text;
    expect(overview).toMatch(/Referrals held for review[\s\S]*too many sign-ups through one link in an hour<\/td><td[^>]*>1</);
    const withheld = parseExposition((await stack.request({ method: 'GET', url: '/metrics', headers: bearer(TOKEN) })).text).find(
      (sample) => sample.name === 'waitlist_referrals_withheld_total' && sample.labels.reason === 'referral_burst',
    );
    expect(withheld?.value).toBe(2);
  });
});
