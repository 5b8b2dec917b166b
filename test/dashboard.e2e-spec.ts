import { DashboardAuthService } from '../apps/api/src/dashboard/dashboard-auth.service';
import { EntryRecord, EventRecord } from '@app/shared';
import { joinLine, signUp } from './support/flows';
import { invitationsTo } from './support/invitations';
import { Receiver } from './support/receiver';
import { waitFor } from './support/wait';
import { Product, Stack } from './support/stack';

const PASSWORD = 'a long enough password';

/** A signed-in session: its cookie and the CSRF token its forms carry. */
async function signIn(stack: Stack, email: string): Promise<{ cookie: string; csrf: string }> {
  const login = await stack.request({
    method: 'POST',
    url: '/dashboard/login',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ email, password: PASSWORD }).toString(),
  });
  const cookie = String(login.headers['set-cookie']).split(';')[0];
  const csrf = /name="_csrf" value="([^"]+)"/.exec((await stack.request({ method: 'GET', url: '/dashboard', headers: { cookie } })).text)![1];
  return { cookie, csrf };
}

describe('dashboard: sign-in, sessions, CSRF, teams', () => {
  let stack: Stack;
  let acme: Product;
  let other: Product;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api', 'mailer'], env: { RATE_LIMIT_SIGNUP: '1000/1m' } });
    acme = await stack.createProduct({ name: 'Acme <script>alert(1)</script>' });
    other = await stack.createProduct({ name: 'Other' });
    await stack.api.get(DashboardAuthService).createUser('ada@example.com', PASSWORD, acme.id);
    await stack.api.get(DashboardAuthService).createUser('bob@example.com', PASSWORD, other.id);
  });
  afterAll(() => stack.stop());

  const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

  async function logIn(email: string, password = PASSWORD) {
    const response = await stack.request({
      method: 'POST',
      url: '/dashboard/login',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: form({ email, password }),
    });
    const cookie = String(response.headers['set-cookie'] ?? '');
    return { response, cookie: cookie.split(';')[0], setCookie: cookie };
  }

  async function page(url: string, cookie: string) {
    return stack.request({ method: 'GET', url, headers: { cookie } });
  }

  it('pages need a session: without one they redirect to the login', async () => {
    for (const url of ['/dashboard', `/dashboard/${acme.id}/live/entries`]) {
      const response = await page(url, '');
      expect([response.status, response.headers.location]).toEqual([303, '/dashboard/login']);
    }
    expect((await page('/dashboard/login', '')).text).toContain('Sign in');
  });

  it('signs in with the right password, into an HttpOnly SameSite session cookie', async () => {
    const { response, setCookie } = await logIn('ADA@example.com ');
    expect([response.status, response.headers.location]).toEqual([303, '/dashboard']);
    expect(setCookie).toMatch(/^wl_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax/);
    const wrong = await logIn('ada@example.com', 'wrong password!!');
    expect(wrong.response.status).toBe(401);
    expect(wrong.response.text).toContain('Wrong email or password');
    expect(wrong.setCookie).toBe('');
  });

  it('shows only the team’s products, escapes what users typed, and 404s every page of another product', async () => {
    const { cookie } = await logIn('ada@example.com');
    const products = await page('/dashboard', cookie);
    expect(products.text).toContain('Acme &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(products.text).not.toContain('<script>');
    expect(products.text).not.toContain('Other');
    expect(products.headers['content-security-policy']).toContain("frame-ancestors 'none'");

    await signUp(stack, acme.keys.test.publishable, 'visible@example.com');
    const entries = await page(`/dashboard/${acme.id}/test/entries`, cookie);
    expect(entries.status).toBe(200);
    expect(entries.text).toContain('visible@example.com');
    expect(entries.text).not.toContain('<script>');
    const search = await page(`/dashboard/${acme.id}/test/entries?email=${encodeURIComponent('"><script>x</script>')}`, cookie);
    expect(search.status).toBe(400);
    expect(search.text).not.toContain('<script>x</script>');

    for (const url of [`/dashboard/${other.id}/live/entries`, `/dashboard/${other.id}/test/entries`, `/dashboard/${acme.id}/staging/entries`]) {
      expect((await page(url, cookie)).status).toBe(404);
    }
  });

  it('a form posted without the CSRF token is refused; with it, sign-out ends the session', async () => {
    const { cookie } = await logIn('ada@example.com');
    const headers = { cookie, 'content-type': 'application/x-www-form-urlencoded' };
    const refused = await stack.request({ method: 'POST', url: '/dashboard/logout', headers, payload: '' });
    expect(refused.status).toBe(403);
    const forged = await stack.request({ method: 'POST', url: '/dashboard/logout', headers, payload: form({ _csrf: 'guess' }) });
    expect(forged.status).toBe(403);
    expect((await page('/dashboard', cookie)).status).toBe(200);

    const csrf = /name="_csrf" value="([^"]+)"/.exec((await page('/dashboard', cookie)).text)![1];
    const out = await stack.request({ method: 'POST', url: '/dashboard/logout', headers, payload: form({ _csrf: csrf }) });
    expect([out.status, out.headers.location]).toEqual([303, '/dashboard/login']);
    expect((await page('/dashboard', cookie)).status).toBe(303);
  });

  it('Bull Board at /admin/queues shows every queue, only to a signed-in user', async () => {
    for (const url of ['/admin/queues', '/admin/queues/api/queues']) {
      const anonymous = await page(url, '');
      expect([anonymous.status, anonymous.headers.location]).toEqual([303, '/dashboard/login']);
    }
    const { cookie } = await logIn('ada@example.com');
    const board = await page('/admin/queues', cookie);
    expect(board.status).toBe(200);
    expect(board.text).toContain('<div id="root">');
    const queues = await page('/admin/queues/api/queues', cookie);
    expect(queues.status).toBe(200);
    expect(queues.json().queues.map((queue: { name: string }) => queue.name).sort()).toEqual(['deliveries', 'invitations', 'mail', 'webhooks']);
  });

  it('failed logins are limited: past ten, 429 with Retry-After even for the right password', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await logIn('bob@example.com', `wrong ${i} password`)).response.status);
    // Ten failures per address (and per IP, which earlier tests already used) are allowed, then no more.
    expect(statuses.filter((status) => status === 401).length).toBeLessThanOrEqual(10);
    expect(statuses.at(-1)).toBe(429);
    const limited = await logIn('bob@example.com');
    expect(limited.response.status).toBe(429);
    expect(limited.response.headers['retry-after']).toMatch(/^\d+$/);
  });
});

describe('dashboard: entry actions through the API’s services', () => {
  let stack: Stack;
  let acme: Product;
  let other: Product;
  let cookie: string;
  let csrf: string;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api', 'mailer'], env: { RATE_LIMIT_SIGNUP: '1000/1m' } });
    acme = await stack.createProduct();
    other = await stack.createProduct({ name: 'Other' });
    await stack.api.get(DashboardAuthService).createUser('ada@example.com', PASSWORD, acme.id);
    ({ cookie, csrf } = await signIn(stack, 'ada@example.com'));
  });
  afterAll(() => stack.stop());

  const act = (id: string, action: string, fields: Record<string, string> = {}, productId = acme.id) =>
    stack.request({
      method: 'POST',
      url: `/dashboard/${productId}/test/entries/${id}/${action}`,
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ _csrf: csrf, ...fields }).toString(),
    });
  const show = async (url: string) => (await stack.request({ method: 'GET', url, headers: { cookie } })).text;

  it('invite from the entry page hands the mail over and emits entry.invited, like the API', async () => {
    const entry = await joinLine(stack, acme.keys.test.publishable, 'guest@example.com');
    const page = await show(`/dashboard/${acme.id}/test/entries/${entry.id}`);
    expect(page).toContain('Place in line: <strong>#1</strong>');
    const response = await act(entry.id, 'invite');
    expect(response.status).toBe(303);
    expect(await show(String(response.headers.location))).toContain('the entry is invited');
    expect(invitationsTo(stack, 'guest@example.com')).toHaveLength(1);
    expect(await stack.db.getRepository(EventRecord).countBy({ type: 'entry.invited' })).toBe(1);
    const again = await act(entry.id, 'invite');
    expect(await show(String(again.headers.location))).toContain('already invited');
  });

  it('move up, errors in words, delete; another product’s entries are out of reach', async () => {
    const [first, second] = [await joinLine(stack, acme.keys.test.publishable, 'first@example.com'), await joinLine(stack, acme.keys.test.publishable, 'second@example.com')];
    expect(await show(String((await act(second.id, 'move-up', { places: '5' })).headers.location))).toContain('moved up');
    expect(await show(`/dashboard/${acme.id}/test/entries/${second.id}`)).toContain('Place in line: <strong>#1</strong>');
    expect(await show(String((await act(second.id, 'move-up', { places: 'lots' })).headers.location))).toContain('whole number');
    await signUp(stack, acme.keys.test.publishable, 'unconfirmed@example.com');
    const pending = await stack.db.getRepository(EntryRecord).findOneByOrFail({ email: 'unconfirmed@example.com' });
    expect(await show(String((await act(pending.id, 'invite')).headers.location))).toContain('has not confirmed');

    const deleted = await act(first.id, 'delete');
    expect([deleted.status, deleted.headers.location]).toEqual([303, `/dashboard/${acme.id}/test/entries`]);
    expect(await stack.db.getRepository(EntryRecord).existsBy({ id: first.id })).toBe(false);
    expect(await stack.db.getRepository(EventRecord).countBy({ type: 'entry.deleted' })).toBe(1);

    const foreign = await joinLine(stack, other.keys.test.publishable, 'foreign@example.com');
    expect((await stack.request({ method: 'GET', url: `/dashboard/${acme.id}/test/entries/${foreign.id}`, headers: { cookie } })).status).toBe(404);
    expect((await act(foreign.id, 'delete')).status).toBe(404);
    expect((await act(foreign.id, 'delete', {}, other.id)).status).toBe(404);
    expect(await stack.db.getRepository(EntryRecord).existsBy({ id: foreign.id })).toBe(true);
    const noToken = await stack.request({
      method: 'POST',
      url: `/dashboard/${acme.id}/test/entries/${second.id}/delete`,
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: '',
    });
    expect(noToken.status).toBe(403);
    expect(await stack.db.getRepository(EntryRecord).existsBy({ id: second.id })).toBe(true);
  });

  it('the line shows waiting entries in line order; invite the next N from there', async () => {
    const line = await show(`/dashboard/${acme.id}/test/line`);
    const emails = [...line.matchAll(/<td>#(\d+)<\/td><td><a [^>]+>([^<]+)<\/a>/g)].map((match) => [Number(match[1]), match[2]]);
    expect(emails).toEqual([[1, 'second@example.com']]);
    await joinLine(stack, acme.keys.test.publishable, 'third@example.com');
    const response = await stack.request({
      method: 'POST',
      url: `/dashboard/${acme.id}/test/line/invite-next`,
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ _csrf: csrf, count: '2' }).toString(),
    });
    expect(response.status).toBe(200);
    expect(response.text).toContain('2 invited');
    expect(response.text).toContain('Nobody is waiting');
    expect(invitationsTo(stack, 'second@example.com')).toHaveLength(1);
    expect(invitationsTo(stack, 'third@example.com')).toHaveLength(1);
  });

  it('exports the filtered entries as CSV, every page of them', async () => {
    const csv = await stack.request({ method: 'GET', url: `/dashboard/${acme.id}/test/entries.csv?state=invited`, headers: { cookie } });
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(csv.headers['content-disposition']).toContain('attachment');
    const lines = csv.text.trim().split('\r\n');
    expect(lines[0]).toBe('id,email,state,createdAt,confirmedAt,invitedAt,redeemedAt,referralCode,referrals');
    expect(lines.slice(1).map((line) => line.split(',')[1]).sort()).toEqual(['guest@example.com', 'second@example.com', 'third@example.com']);
    expect((await stack.request({ method: 'GET', url: `/dashboard/${other.id}/test/entries.csv`, headers: { cookie } })).status).toBe(404);
  });

  it('API keys: a new pair shows its secret once and works; revoking makes it 401; last use is shown', async () => {
    const created = await stack.request({
      method: 'POST',
      url: `/dashboard/${acme.id}/test/keys`,
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ _csrf: csrf }).toString(),
    });
    expect(created.status).toBe(201);
    const secret = /<code data-secret>(sk_test_[A-Za-z0-9_-]+)<\/code>/.exec(created.text)![1];
    const list = () => stack.request({ method: 'GET', url: '/api/v1/entries', headers: { authorization: `Bearer ${secret}` } });
    expect((await list()).status).toBe(200);
    await waitFor(async () => (await stack.db.query(`SELECT 1 FROM api_keys WHERE hint LIKE $1 AND last_used_at IS NOT NULL`, [`${secret.slice(0, 12)}%`])).length === 1, 'last use to be recorded');
    const page = await show(`/dashboard/${acme.id}/test/keys`);
    const row = page.split('<tr>').find((part) => part.includes(secret.slice(0, 12)))!;
    expect(row).toMatch(/<td>secret<\/td><td>[\d-]+ [\d:]+<\/td><td>[\d-]+ [\d:]+<\/td>/);
    expect(page).not.toContain(secret);
    expect(page).toContain(secret.slice(0, 12));
    const [key] = await stack.db.query(`SELECT id FROM api_keys WHERE hint LIKE $1`, [`${secret.slice(0, 12)}%`]);
    const revoked = await stack.request({
      method: 'POST',
      url: `/dashboard/${acme.id}/test/keys/${key.id}/revoke`,
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ _csrf: csrf }).toString(),
    });
    expect(revoked.status).toBe(303);
    expect((await list()).status).toBe(401);
    expect(await show(`/dashboard/${acme.id}/test/keys`)).toContain('revoked');
    // Another product's key cannot be revoked from here.
    const [foreignKey] = await stack.db.query(`SELECT id FROM api_keys WHERE product_id = $1 AND kind = 'secret' LIMIT 1`, [other.id]);
    const refused = await stack.request({
      method: 'POST',
      url: `/dashboard/${acme.id}/test/keys/${foreignKey.id}/revoke`,
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ _csrf: csrf }).toString(),
    });
    expect(refused.status).toBe(404);
    expect((await stack.request({ method: 'GET', url: '/api/v1/entries', headers: { authorization: `Bearer ${other.keys.test.secret}` } })).status).toBe(200);
  });
});

describe('dashboard: webhook endpoints and the delivery log', () => {
  let stack: Stack;
  let acme: Product;
  let cookie: string;
  let csrf: string;
  let receiver: Receiver;

  beforeAll(async () => {
    stack = await Stack.start({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
    receiver = await new Receiver().start();
    acme = await stack.createProduct();
    await stack.api.get(DashboardAuthService).createUser('ada@example.com', PASSWORD, acme.id);
    ({ cookie, csrf } = await signIn(stack, 'ada@example.com'));
  });
  afterAll(async () => {
    await receiver.stop();
    await stack.stop();
  });

  const post = (url: string, fields: [string, string][] = []) =>
    stack.request({
      method: 'POST',
      url,
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams([['_csrf', csrf], ...fields]).toString(),
    });

  it('create an endpoint (secret shown once), send a test event, see it in the delivery log', async () => {
    const base = `/dashboard/${acme.id}/live/webhooks`;
    const created = await post(base, [['url', `${receiver.url}/hook`], ['events', 'entry.invited'], ['events', 'entry.redeemed']]);
    expect(created.status).toBe(201);
    const secret = /<code data-secret>(whsec_[A-Za-z0-9_-]+)<\/code>/.exec(created.text)![1];
    const [endpoint] = await stack.db.query('SELECT id, events, mode FROM webhook_endpoints WHERE product_id = $1', [acme.id]);
    expect(endpoint).toMatchObject({ events: ['entry.invited', 'entry.redeemed'], mode: 'live' });
    expect((await stack.request({ method: 'GET', url: base, headers: { cookie } })).text).not.toContain(secret);

    expect((await post(`${base}/${endpoint.id}/test`)).text).toContain('webhook.test event is on its way');
    const [delivery] = await receiver.waitFor(1);
    expect(delivery.headers['service-event']).toBe('webhook.test');
    await waitFor(async () => (await stack.request({ method: 'GET', url: `${base}/${endpoint.id}`, headers: { cookie } })).text.includes('succeeded'), 'the log to show the delivery');
    const log = (await stack.request({ method: 'GET', url: `${base}/${endpoint.id}`, headers: { cookie } })).text;
    expect(log).toContain('webhook.test');
    expect(log).toMatch(/ · 200 · \d+ ms/);

    expect((await post(`${base}/${endpoint.id}/disable`)).status).toBe(303);
    expect((await stack.request({ method: 'GET', url: base, headers: { cookie } })).text).toContain('disabled');
    const rotated = await post(`${base}/${endpoint.id}/rotate`);
    expect(/<code data-secret>(whsec_[A-Za-z0-9_-]+)<\/code>/.exec(rotated.text)![1]).not.toBe(secret);
    const refused = await post(base, [['url', 'ftp://example.com'], ['events', 'entry.invited']]);
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('https');
  });

  it('another product’s endpoints are out of reach', async () => {
    const other = await stack.createProduct({ name: 'Other' });
    const { WebhooksService } = await import('../apps/api/src/webhooks/webhooks.service');
    const foreign = await stack.api.get(WebhooksService).create({ productId: other.id, mode: 'live', url: receiver.url });
    expect((await stack.request({ method: 'GET', url: `/dashboard/${acme.id}/live/webhooks/${foreign.id}`, headers: { cookie } })).status).toBe(404);
    expect((await post(`/dashboard/${acme.id}/live/webhooks/${foreign.id}/delete`)).status).toBe(404);
    expect((await stack.db.query('SELECT 1 FROM webhook_endpoints WHERE id = $1', [foreign.id])).length).toBe(1);
  });
});
