import { EntryRecord, EventRecord } from '@app/shared';
import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { PASSWORD, signIn } from './support/dashboard';
import { bearer, confirmPath, events, joinLine, signUp } from './support/flows';
import { api, line } from './support/invitations';
import { linkIn } from './support/smtp-sink';
import { Product, Stack } from './support/stack';

describe('sign-up, confirm and unsubscribe', () => {
  let stack: Stack;
  let product: Product;
  let pk: string;

  beforeAll(async () => {
    // The webhooks app is left out so that event bodies stay for the assertions.
    stack = await Stack.start({ apps: ['api', 'mailer'], env: { RATE_LIMIT_SIGNUP: '1000/1m' } });
    product = await stack.createProduct({ name: 'Acme <Beta>' });
    pk = product.keys.test.publishable;
  });
  afterAll(() => stack.stop());

  const entry = (email: string) => stack.db.getRepository(EntryRecord).findOneBy({ email });

  it('a sign-up answers 202, keeps a pending entry and emits entry.created', async () => {
    const response = await stack.request({ method: 'POST', url: '/public/v1/signups', body: { key: pk, email: '  Ada@Example.COM ' } });
    expect(response.status).toBe(202);
    expect(response.json()).toEqual({ status: 'received' });
    const record = await entry('ada@example.com');
    expect(record).toMatchObject({ state: 'pending', mode: 'test', productId: product.id, referralCode: null, confirmedAt: null });
    const created = (await events(stack)).filter((event) => event.type === 'entry.created');
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({ mode: 'test', productId: product.id, data: { entry: { email: 'ada@example.com', state: 'pending' } } });
    expect(created[0].id).toMatch(/^evt_/);
  });

  it('the confirmation mail has text and HTML parts, the product name, its links and List-Unsubscribe headers', async () => {
    const mail = await stack.mail.waitFor('ada@example.com');
    expect(mail.subject).toContain('Acme <Beta>');
    expect(mail.from).toContain('Acme <Beta>');
    expect(mail.text).toContain(`${stack.config.PUBLIC_BASE_URL}/confirm/`);
    const unsubscribe = linkIn(mail, `${stack.config.PUBLIC_BASE_URL}/unsubscribe/`);
    expect(mail.html).toContain('Acme &lt;Beta&gt;');
    expect(mail.html).toContain(unsubscribe);
    expect(mail.headers['list-unsubscribe']).toBe(`<${unsubscribe}>`);
    expect(mail.headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click');
  });

  it('GET on a confirm link shows a button and changes nothing; the POST confirms', async () => {
    const path = await confirmPath(stack, 'ada@example.com');
    const before = await stack.db.getRepository(EventRecord).count();
    const page = await stack.request({ method: 'GET', url: path });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.text).toContain('<form method="post">');
    expect(page.text).toContain('Acme &lt;Beta&gt;');
    expect((await entry('ada@example.com'))?.state).toBe('pending');
    expect(await stack.db.getRepository(EventRecord).count()).toBe(before);

    const confirmed = await stack.request({ method: 'POST', url: path, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: '' });
    expect(confirmed.status).toBe(303);
    expect(confirmed.headers.location).toBe(path);
    const record = await entry('ada@example.com');
    expect(record).toMatchObject({ state: 'confirmed', confirmationSeq: 1, referrals: 0 });
    expect(record?.confirmedAt).toBeInstanceOf(Date);
    expect(record?.referralCode).toMatch(/^[a-z2-9]{12}$/);
    const confirmedEvents = (await events(stack)).filter((event) => event.type === 'entry.confirmed');
    expect(confirmedEvents).toHaveLength(1);
    expect(confirmedEvents[0].data.entry).toMatchObject({ state: 'confirmed', referralCode: record?.referralCode });
  });

  it('the confirmed page shows the place in line and the referral link; confirming again changes nothing', async () => {
    const path = await confirmPath(stack, 'ada@example.com');
    const again = await stack.request({ method: 'POST', url: path });
    expect(again.status).toBe(303);
    const page = await stack.request({ method: 'GET', url: path });
    const record = await entry('ada@example.com');
    expect(page.text).toContain('#1');
    expect(page.text).toContain(`${stack.config.PUBLIC_BASE_URL}/w/${pk}?ref=${record?.referralCode}`);
    expect((await events(stack)).filter((event) => event.type === 'entry.confirmed')).toHaveLength(1);
  });

  it('a confirmed referral moves the referrer up by the product referral places, once', async () => {
    const referrer = await joinLine(stack, pk, 'ref-owner@example.com');
    const before = await joinLine(stack, pk, 'early@example.com');
    expect(referrer.lineKey).toBe(2);
    await signUp(stack, pk, 'friend@example.com', referrer.referralCode!);
    expect((await entry('ref-owner@example.com'))?.referrals).toBe(0);
    const path = await confirmPath(stack, 'friend@example.com');
    await stack.request({ method: 'POST', url: path });
    await stack.request({ method: 'POST', url: path });
    const after = await entry('ref-owner@example.com');
    expect(after).toMatchObject({ referrals: 1, lineKey: 1 });
    expect(before.lineKey).toBe(3);
    // ref-owner (key 1, moved up by its referral) wins the tie with ada (key 1) → place 1, ada 2; early (3) → place 3
    const place = async (email: string) => /<p class="place">#(\d+)<\/p>/.exec((await stack.request({ method: 'GET', url: await confirmPath(stack, email) })).text)?.[1];
    expect([await place('ref-owner@example.com'), await place('ada@example.com'), await place('early@example.com')]).toEqual(['1', '2', '3']);
  });

  it('the first referral gains its place: #5 with one confirmed referral passes #4 on its page, in the dashboard and for invite-next', async () => {
    const tie = await stack.createProduct({ name: 'Tie', referralPlaces: 1 });
    const tpk = tie.keys.test.publishable;
    const [e1, e2, e3, e4, e5] = await line(stack, tpk, ['tie1@example.com', 'tie2@example.com', 'tie3@example.com', 'tie4@example.com', 'tie5@example.com']);
    await joinLine(stack, tpk, 'tie5-friend@example.com', e5.referralCode!);
    const confirmPage = async (email: string) => (await stack.request({ method: 'GET', url: await confirmPath(stack, email) })).text;
    expect(await confirmPage('tie5@example.com')).toContain('<p class="place">#4</p>');
    expect(await confirmPage('tie4@example.com')).toContain('<p class="place">#5</p>');

    await stack.api.get(DashboardAuthService).createUser('tie-team@example.com', PASSWORD, tie.id);
    const { cookie } = await signIn(stack, 'tie-team@example.com');
    const dashboardPage = async (id: string) => (await stack.request({ method: 'GET', url: `/dashboard/${tie.id}/test/entries/${id}`, headers: { cookie } })).text;
    expect(await dashboardPage(e5.id)).toContain('Place in line: <strong>#4</strong>');
    expect(await dashboardPage(e4.id)).toContain('Place in line: <strong>#5</strong>');

    const next = await api(stack, tie.keys.test.secret).inviteNext(5);
    expect(next.json()).toEqual({ invited: [e1.id, e2.id, e3.id, e5.id, e4.id], failed: [] });
  });

  it('variants of the referrer’s own address give it no referral, silently; the sign-ups still work', async () => {
    const farmer = await joinLine(stack, pk, 'flood@x.example');
    for (const email of ['flood+r1@x.example', 'flood+r2@x.example']) await joinLine(stack, pk, email, farmer.referralCode!);
    await signUp(stack, pk, 'FLOOD+r3@x.example', farmer.referralCode!);
    expect((await stack.request({ method: 'POST', url: await confirmPath(stack, 'flood+r3@x.example') })).status).toBe(303);
    // Dots count at x.example: f.l.o.o.d is another mailbox, and a referral.
    await joinLine(stack, pk, 'f.l.o.o.d@x.example', farmer.referralCode!);
    const gmail = await joinLine(stack, pk, 'flood@gmail.com');
    for (const email of ['f.l.o.o.d@gmail.com', 'flood+r1@googlemail.com', 'fl.ood+r2@googlemail.com']) await joinLine(stack, pk, email, gmail.referralCode!);

    expect(await entry('flood@x.example')).toMatchObject({ referrals: 1, lineKey: farmer.lineKey! - 1 });
    expect(await entry('flood@gmail.com')).toMatchObject({ referrals: 0, lineKey: gmail.lineKey });
    for (const email of ['flood+r1@x.example', 'flood+r2@x.example', 'flood+r3@x.example', 'f.l.o.o.d@gmail.com', 'flood+r1@googlemail.com', 'fl.ood+r2@googlemail.com']) {
      expect(await entry(email)).toMatchObject({ email, state: 'confirmed', referredBy: null });
    }
    expect((await entry('f.l.o.o.d@x.example'))?.referredBy).toBe(farmer.id);
  });

  it('an address counts as a referral once per product and mode, whatever its variant, link or comings and goings', async () => {
    const [first, second] = await line(stack, pk, ['credit-a@example.com', 'credit-b@example.com']);
    const friend = await joinLine(stack, pk, 'pal@example.com', first.referralCode!);
    await joinLine(stack, pk, 'pal+again@example.com', second.referralCode!);
    // The friend leaves and joins again through a link: still the same address.
    const unsubscribe = new URL(linkIn(stack.mail.to('pal@example.com')[0], `${stack.config.PUBLIC_BASE_URL}/unsubscribe/`)).pathname;
    expect((await stack.request({ method: 'POST', url: unsubscribe })).status).toBe(200);
    await signUp(stack, pk, 'pal@example.com', second.referralCode!);
    expect((await stack.request({ method: 'POST', url: await confirmPath(stack, 'pal@example.com', 2) })).status).toBe(303);
    expect([(await entry('credit-a@example.com'))?.referrals, (await entry('credit-b@example.com'))?.referrals]).toEqual([1, 0]);
    expect((await entry('pal@example.com'))?.id).not.toBe(friend.id);

    // The same address in the live line is another line's referral.
    const live = await joinLine(stack, product.keys.live.publishable, 'credit-live@example.com');
    await joinLine(stack, product.keys.live.publishable, 'pal+live@example.com', live.referralCode!);
    expect((await entry('credit-live@example.com'))?.referrals).toBe(1);
  });

  it('an unknown ref is ignored', async () => {
    await joinLine(stack, pk, 'stranger@example.com', 'nosuchcode');
    expect((await entry('stranger@example.com'))?.referredBy).toBeNull();
  });

  it('a repeated sign-up of a pending address sends a new mail and updates createdAt, without an event', async () => {
    await signUp(stack, pk, 'twice@example.com');
    await stack.mail.waitFor('twice@example.com');
    const first = await entry('twice@example.com');
    const eventCount = await stack.db.getRepository(EventRecord).count();
    await signUp(stack, pk, 'TWICE@example.com');
    await stack.mail.waitFor('twice@example.com', 2);
    const second = await entry('twice@example.com');
    expect(second?.id).toBe(first?.id);
    expect(second!.createdAt.getTime()).toBeGreaterThanOrEqual(first!.createdAt.getTime());
    expect(await stack.db.getRepository(EventRecord).count()).toBe(eventCount);
    // Both mails' links work: the older one confirms as well.
    const firstLink = new URL(linkIn(stack.mail.to('twice@example.com')[0], `${stack.config.PUBLIC_BASE_URL}/confirm/`)).pathname;
    expect((await stack.request({ method: 'POST', url: firstLink })).status).toBe(303);
    expect((await entry('twice@example.com'))?.state).toBe('confirmed');
  });

  it('a sign-up of a confirmed address answers the same and sends nothing', async () => {
    const mailsBefore = stack.mail.to('ada@example.com').length;
    await signUp(stack, pk, 'ada@example.com');
    await joinLine(stack, pk, 'marker@example.com');
    expect(stack.mail.to('ada@example.com')).toHaveLength(mailsBefore);
  });

  it('an HTML form sign-up answers 303 to the check-your-inbox page', async () => {
    const response = await stack.request({
      method: 'POST',
      url: '/public/v1/signups',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `key=${encodeURIComponent(pk)}&email=form%40example.com`,
    });
    expect(response.status).toBe(303);
    expect(response.headers.location).toBe(`/w/${pk}/sent`);
    const page = await stack.request({ method: 'GET', url: response.headers.location as string });
    expect(page.status).toBe(200);
    expect(page.text).toContain('Check your inbox');
    await stack.mail.waitFor('form@example.com');
  });

  it('the hosted sign-up page carries the key and the ref, escaped', async () => {
    const page = await stack.request({ method: 'GET', url: `/w/${pk}?ref=%22%3E%3Cscript%3E` });
    expect(page.status).toBe(200);
    expect(page.text).toContain('action="/public/v1/signups"');
    expect(page.text).toContain(`value="${pk}"`);
    expect(page.text).toContain('value="&quot;&gt;&lt;script&gt;"');
    expect(page.text).not.toContain('<script>');
    expect((await stack.request({ method: 'GET', url: '/w/pk_test_unknown' })).status).toBe(404);
  });

  it('an unknown or secret key is 401; a bad address is 400 invalid_email', async () => {
    for (const key of ['pk_test_nope', product.keys.test.secret, '']) {
      const response = await stack.request({ method: 'POST', url: '/public/v1/signups', body: { key, email: 'x@example.com' } });
      expect(response.status).toBe(401);
      expect(response.json().error.code).toBe('unauthorized');
    }
    const bad = await stack.request({ method: 'POST', url: '/public/v1/signups', body: { key: pk, email: 'not-an-address' } });
    expect(bad.status).toBe(400);
    expect(bad.json().error.code).toBe('invalid_email');
    expect(await entry('x@example.com')).toBeNull();
  });

  it('unsubscribe: GET shows a page and changes nothing; POST deletes the entry with entry.unsubscribed', async () => {
    const mail = await stack.mail.waitFor('ada@example.com');
    const path = new URL(linkIn(mail, `${stack.config.PUBLIC_BASE_URL}/unsubscribe/`)).pathname;
    const page = await stack.request({ method: 'GET', url: path });
    expect(page.status).toBe(200);
    expect(page.text).toContain('<form method="post">');
    const asItWas = await entry('ada@example.com');
    expect(asItWas).not.toBeNull();

    const done = await stack.request({ method: 'POST', url: path });
    expect(done.status).toBe(200);
    expect(await entry('ada@example.com')).toBeNull();
    const unsubscribed = (await events(stack)).filter((event) => event.type === 'entry.unsubscribed' && event.data.entry.email === 'ada@example.com');
    expect(unsubscribed).toHaveLength(1);
    expect(unsubscribed[0].data.entry).toMatchObject({ id: asItWas!.id, email: 'ada@example.com', state: 'confirmed' });
    expect((await stack.request({ method: 'GET', url: path })).status).toBe(404);
  });

  it('RFC 8058 one-click unsubscribe works on the same URL', async () => {
    await signUp(stack, pk, 'oneclick@example.com');
    const mail = await stack.mail.waitFor('oneclick@example.com');
    const path = new URL(linkIn(mail, `${stack.config.PUBLIC_BASE_URL}/unsubscribe/`)).pathname;
    const response = await stack.request({
      method: 'POST',
      url: path,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(response.status).toBe(200);
    expect(await entry('oneclick@example.com')).toBeNull();
  });

  it('the entry is found through the API with the secret key after confirming', async () => {
    await joinLine(stack, pk, 'api-visible@example.com');
    const response = await stack.request({ method: 'GET', url: '/api/v1/entries?email=API-Visible@example.com', headers: bearer(product.keys.test.secret) });
    expect(response.status).toBe(200);
    expect(response.json().data).toHaveLength(1);
    expect(response.json().data[0]).toMatchObject({ email: 'api-visible@example.com', state: 'confirmed' });
  });
});
