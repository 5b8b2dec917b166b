import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { PREVIEW_SCRIPT } from '../apps/api/src/dashboard/templates/template-preview';
import { LoginHooksService } from '../apps/api/src/login-hooks/login-hooks.service';
import { WebhooksService } from '../apps/api/src/webhooks/webhooks.service';
import { joinLine, signUp } from './support/flows';
import { Product, Stack } from './support/stack';
import { cookieParts, csrfIn, dashboardRoutes, form, logIn as logInAs, PASSWORD, releaseOf, setCookies, signIn, twoTeams } from './support/dashboard';
import { SETTINGS_SECTIONS } from '../apps/api/src/dashboard/settings/settings-sections';

/** The actions a route's :action stands for. */
const ACTIONS: Record<string, string[]> = {
  'entries/:id/:action': ['invite', 'reinvite', 'move-up', 'delete'],
  'webhooks/:endpointId/:action': ['test', 'rotate', 'disable', 'enable', 'delete'],
  'releases/:releaseId/:action': ['pause', 'resume', 'run', 'delete'],
};

/** Every dashboard route with the ids given, one URL per action where the route has an :action. */
function dashboardUrls(ids: Record<string, string>, keep: (route: { method: string; path: string }) => boolean = () => true) {
  return dashboardRoutes()
    .filter(keep)
    .flatMap(({ method, path }) =>
      (Object.entries(ACTIONS).find(([suffix]) => path.endsWith(suffix))?.[1] ?? ['']).map((action) => ({
        method,
        url: `/dashboard/${path}`.replace(/\/$/, '').replace(/:(\w+)/g, (_, param: string) => (param === 'action' ? action : ids[param])),
      })),
    );
}

describe('dashboard: sign-in, sessions, CSRF, teams', () => {
  let stack: Stack;
  let acme: Product;
  let other: Product;

  beforeAll(async () => {
    ({ stack, acme, other } = await twoTeams());
  });
  afterAll(() => stack.stop());

  const logIn = (email: string, password = PASSWORD) => logInAs(stack, email, password);

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
    expect(cookieParts(setCookie)).toEqual({ pair: expect.stringMatching(/^wl_session=[A-Za-z0-9_-]{43}$/), attributes: ['HttpOnly', 'Max-Age=43200', 'Path=/', 'SameSite=Lax'] });
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
    expect(search.status).toBe(200);
    expect(search.text).not.toContain('<script>x</script>');
    expect(search.text).toContain('value="&quot;&gt;&lt;script&gt;x&lt;/script&gt;"');
    expect(search.text).toContain('No entries.');

    // The search box takes part of an address too; % and _ are plain characters there.
    await signUp(stack, acme.keys.test.publishable, 'other_visible@example.com');
    const found = async (text: string) => [...(await page(`/dashboard/${acme.id}/test/entries?email=${encodeURIComponent(text)}`, cookie)).text.matchAll(/">([^<]+@example\.com)<\/a>/g)].map((match) => match[1]);
    expect(await found('VISIBLE@')).toEqual(['other_visible@example.com', 'visible@example.com']);
    expect(await found('visible@example.com')).toEqual(['visible@example.com']);
    expect(await found('r_v')).toEqual(['other_visible@example.com']);
    expect(await found('r%v')).toEqual([]);
    expect(await found('i_i')).toEqual([]);

    for (const url of [`/dashboard/${other.id}/live/entries`, `/dashboard/${other.id}/test/entries`, `/dashboard/${acme.id}/staging/entries`]) {
      expect((await page(url, cookie)).status).toBe(404);
    }
  });

  it('a user of one product gets 404 for every page and action of another, and nothing changes', async () => {
    const { cookie, csrf } = await signIn(stack, 'ada@example.com');
    const entry = await joinLine(stack, other.keys.live.publishable, 'theirs@example.com');
    const endpoint = await stack.api.get(WebhooksService).create({ productId: other.id, mode: 'live', url: 'http://127.0.0.1:9/hook' });
    const [key] = await stack.db.query("SELECT id FROM api_keys WHERE product_id = $1 AND mode = 'live' AND kind = 'secret'", [other.id]);
    const hook = await stack.api.get(LoginHooksService).create({ productId: other.id, mode: 'live' }, { provider: 'kratos', failOpen: false });
    const ids: Record<string, string> = { productId: other.id, mode: 'live', id: entry.id, endpointId: endpoint.id, keyId: key.id, hookId: hook.id, deliveryId: 'dlv_x', releaseId: await releaseOf(stack, other.id) };
    // Every route of every dashboard controller, read from their metadata, so that a page added later is checked too.
    const routes = dashboardUrls(ids, ({ path }) => path.includes(':productId'));
    expect(routes.length).toBeGreaterThanOrEqual(29);
    for (const { method, url } of routes) {
      const response = await stack.request({
        method,
        url,
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        payload: method === 'POST' ? form({ _csrf: csrf, places: '5', count: '1', url: 'https://evil.example/', name: 'Taken', referralPlaces: '9' }) : undefined,
      });
      expect([method, url, response.status]).toEqual([method, url, 404]);
    }
    const [after] = await stack.db.query('SELECT state, moved_up FROM entries WHERE id = $1', [entry.id]);
    expect(after).toEqual({ state: 'confirmed', moved_up: '0' });
    expect(await stack.db.query('SELECT name, referral_places FROM products WHERE id = $1', [other.id])).toEqual([{ name: 'Other', referral_places: 1 }]);
    expect(await stack.db.query('SELECT url, disabled_at FROM webhook_endpoints WHERE product_id = $1', [other.id])).toEqual([{ url: 'http://127.0.0.1:9/hook', disabled_at: null }]);
    expect(await stack.db.query('SELECT count(*)::int AS n FROM api_keys WHERE product_id = $1 AND revoked_at IS NOT NULL', [other.id])).toEqual([{ n: 0 }]);
    expect(await stack.db.query('SELECT revoked_at FROM login_hooks WHERE id = $1', [hook.id])).toEqual([{ revoked_at: null }]);
  });

  it('every route but the login needs a session, and every POST the session’s CSRF token; without them nothing changes', async () => {
    const { cookie } = await signIn(stack, 'ada@example.com');
    const entry = await joinLine(stack, acme.keys.live.publishable, 'guarded@example.com');
    const endpoint = await stack.api.get(WebhooksService).create({ productId: acme.id, mode: 'live', url: 'http://127.0.0.1:9/hook' });
    const [key] = await stack.db.query("SELECT id FROM api_keys WHERE product_id = $1 AND mode = 'live' AND kind = 'secret'", [acme.id]);
    const ids: Record<string, string> = { productId: acme.id, mode: 'live', id: entry.id, endpointId: endpoint.id, keyId: key.id, deliveryId: 'dlv_x', releaseId: await releaseOf(stack, acme.id) };
    const routes = dashboardUrls(ids, ({ path }) => path !== 'login');
    expect(routes.length).toBeGreaterThanOrEqual(31);
    const state = () =>
      stack.db.query(
        `SELECT (SELECT json_agg(e ORDER BY id) FROM entries e WHERE product_id = $1) AS entries,
                (SELECT json_agg(w ORDER BY id) FROM webhook_endpoints w WHERE product_id = $1) AS endpoints,
                (SELECT json_agg(k ORDER BY id) FROM api_keys k WHERE product_id = $1) AS keys,
                (SELECT row_to_json(p) FROM products p WHERE id = $1) AS product,
                (SELECT count(*)::int FROM dashboard_sessions) AS sessions`,
        [acme.id],
      );
    const before = await state();
    const fields = { places: '5', count: '1', url: 'https://evil.example/', name: 'Taken', referralPlaces: '9' };
    for (const { method, url } of routes) {
      const headers = { 'content-type': 'application/x-www-form-urlencoded' };
      const payload = method === 'POST' ? form(fields) : undefined;
      const anonymous = await stack.request({ method, url, headers, payload });
      expect([method, url, anonymous.status, anonymous.headers.location]).toEqual([method, url, 303, '/dashboard/login']);
      if (method === 'POST') {
        const forged = await stack.request({ method, url, headers: { ...headers, cookie }, payload });
        expect([method, url, forged.status]).toEqual([method, url, 403]);
      }
    }
    expect(await state()).toEqual(before);
  });

  it('made-up cookies are as good as none: never a 500, nothing reflected', async () => {
    for (const cookie of ['wl_session=%E0%A4%A', 'wl_session=a%0D%0ASet-Cookie:x', 'wl_login=%ZZ; wl_session=', 'wl_login=a;b"<script>']) {
      const login = await stack.request({ method: 'GET', url: '/dashboard/login', headers: { cookie } });
      expect([cookie, login.status]).toEqual([cookie, 200]);
      expect(String(login.headers['set-cookie'])).toMatch(/^wl_login=[A-Za-z0-9_-]{43};/);
      expect(login.text).not.toContain('<script>');
      const dashboard = await stack.request({ method: 'GET', url: '/dashboard', headers: { cookie } });
      expect([cookie, dashboard.status, dashboard.headers.location]).toEqual([cookie, 303, '/dashboard/login']);
      expect((await stack.request({ method: 'GET', url: '/admin/queues', headers: { cookie } })).status).toBe(303);
    }
  });

  it('every page of the product escapes what users typed: a product name, a webhook URL, a search', async () => {
    const { cookie } = await signIn(stack, 'ada@example.com');
    const entry = await joinLine(stack, acme.keys.live.publishable, 'escaped@example.com');
    await joinLine(stack, acme.keys.live.publishable, 'escaped-friend@example.com', entry.referralCode!);
    const [referral] = await stack.db.query('SELECT id FROM referrals WHERE referrer_id = $1', [entry.id]);
    const endpoint = await stack.api.get(WebhooksService).create({ productId: acme.id, mode: 'live', url: 'http://127.0.0.1:9/hook?<script>alert(2)</script>' });
    const [key] = await stack.db.query("SELECT id FROM api_keys WHERE product_id = $1 AND mode = 'live' AND kind = 'secret'", [acme.id]);
    const hook = await stack.api.get(LoginHooksService).create({ productId: acme.id, mode: 'live' }, { provider: 'supabase', failOpen: false });
    // A release with a run that invited the entry, for the run's page.
    const releaseId = await releaseOf(stack, acme.id);
    await stack.db.query(`INSERT INTO release_runs (id, release_id, started_at, asked, invited, invited_entry_ids) VALUES ('run_escaped', $1, now(), 1, 1, $2)`, [releaseId, [entry.id]]);
    // The confirmation pages of destructive actions too.
    const ids: Record<string, string> = {
      ...{ productId: acme.id, mode: 'live', id: entry.id, endpointId: endpoint.id, keyId: key.id, hookId: hook.id, referralId: referral.id },
      ...{ releaseId, runId: 'run_escaped', kind: 'confirmation', locale: 'de' },
    };
    const pages = dashboardRoutes()
      .filter(({ method, path }) => method === 'GET' && path.includes(':productId') && !path.endsWith('.csv'))
      // Each section of the settings.
      .flatMap((route) => (route.path.includes(':section') ? SETTINGS_SECTIONS.map((section) => ({ ...route, path: route.path.replace(':section', section.path) })) : [route]))
      .map(({ path }) => `/dashboard/${path.replace(/:(\w+)/g, (_, param: string) => ids[param])}${path.endsWith('entries/bulk') ? `?action=delete&ids=${entry.id}` : ''}`);
    pages.push(`/dashboard/${acme.id}/live/entries?email=${encodeURIComponent('<script>alert(3)</script>')}`);
    expect(pages.length).toBeGreaterThanOrEqual(14);
    for (const url of pages) {
      const response = await page(url, cookie);
      expect([url, response.status]).toEqual([url, 200]);
      // The template editor's own script is the one a page may hold (allowed by its hash alone).
      expect(response.text.replace(`<script>${PREVIEW_SCRIPT}</script>`, '')).not.toMatch(/<script/i);
      expect(response.text).toContain('Acme &lt;script&gt;alert(1)&lt;/script&gt;');
    }
    for (const url of [`/dashboard/${acme.id}/live/webhooks`, `/dashboard/${acme.id}/live/webhooks/${endpoint.id}/delete`]) {
      expect((await page(url, cookie)).text).toContain('hook?&lt;script&gt;alert(2)&lt;/script&gt;');
    }
  });

  it('a login form posted from elsewhere (no login cookie, or another token) is refused', async () => {
    const payload = form({ email: 'ada@example.com', password: PASSWORD, _csrf: 'x'.repeat(43) });
    const headers = { 'content-type': 'application/x-www-form-urlencoded' };
    for (const cookie of ['', `wl_login=${'y'.repeat(43)}`]) {
      const response = await stack.request({ method: 'POST', url: '/dashboard/login', headers: { ...headers, cookie }, payload });
      expect(response.status).toBe(403);
      expect(String(response.headers['set-cookie'])).not.toContain('wl_session=');
      expect(response.text).toContain('sign in again');
    }
    const { setCookie } = await logIn('ada@example.com');
    expect(setCookie).toContain('wl_session=');
  });

  it('a login form with an empty or missing token is refused, whatever login cookie comes with it', async () => {
    const headers = { 'content-type': 'application/x-www-form-urlencoded' };
    const valid = String((await page('/dashboard/login', '')).headers['set-cookie']).split(';')[0];
    for (const cookie of ['', 'wl_login=', valid]) {
      for (const payload of [form({ email: 'ada@example.com', password: PASSWORD, _csrf: '' }), form({ email: 'ada@example.com', password: PASSWORD })]) {
        const response = await stack.request({ method: 'POST', url: '/dashboard/login', headers: { ...headers, cookie }, payload });
        expect([cookie, payload, response.status]).toEqual([cookie, payload, 403]);
        expect(String(response.headers['set-cookie'])).not.toContain('wl_session=');
      }
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

    const csrf = csrfIn((await page('/dashboard', cookie)).text);
    const out = await stack.request({ method: 'POST', url: '/dashboard/logout', headers, payload: form({ _csrf: csrf }) });
    expect([out.status, out.headers.location]).toEqual([303, '/dashboard/login']);
    expect((await page('/dashboard', cookie)).status).toBe(303);
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

describe.each([
  ['http://localhost:3000', []],
  ['https://waitlist.example', ['Secure']],
])('dashboard cookies, PUBLIC_BASE_URL=%s', (base, secure) => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api'], env: { PUBLIC_BASE_URL: base } });
    const acme = await stack.createProduct();
    await stack.api.get(DashboardAuthService).createUser('ada@example.com', PASSWORD, acme.id);
  });
  afterAll(() => stack.stop());

  const flags = (...attributes: string[]) => [...attributes, ...secure].sort();

  it('the login form’s token on the login path only (Strict), the session on every path for 12 hours (Lax), both HttpOnly; signing in and out clears them', async () => {
    const loginForm = setCookies(await stack.request({ method: 'GET', url: '/dashboard/login' }));
    expect(cookieParts(loginForm.wl_login)).toEqual({ pair: expect.stringMatching(/^wl_login=[A-Za-z0-9_-]{43}$/), attributes: flags('HttpOnly', 'Path=/dashboard/login', 'SameSite=Strict') });

    const { response, cookie } = await logInAs(stack, 'ada@example.com');
    const signedIn = setCookies(response);
    expect(cookieParts(signedIn.wl_session)).toEqual({ pair: expect.stringMatching(/^wl_session=[A-Za-z0-9_-]{43}$/), attributes: flags('HttpOnly', 'Max-Age=43200', 'Path=/', 'SameSite=Lax') });
    expect(cookieParts(signedIn.wl_login)).toEqual({ pair: 'wl_login=', attributes: flags('HttpOnly', 'Max-Age=0', 'Path=/dashboard/login', 'SameSite=Strict') });

    const csrf = csrfIn((await stack.request({ method: 'GET', url: '/dashboard', headers: { cookie } })).text);
    const headers = { cookie, 'content-type': 'application/x-www-form-urlencoded' };
    const signedOut = setCookies(await stack.request({ method: 'POST', url: '/dashboard/logout', headers, payload: form({ _csrf: csrf }) }));
    expect(cookieParts(signedOut.wl_session)).toEqual({ pair: 'wl_session=', attributes: flags('HttpOnly', 'Max-Age=0', 'Path=/', 'SameSite=Lax') });
  });
});
