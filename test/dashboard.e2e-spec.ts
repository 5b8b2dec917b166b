import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { PREVIEW_SCRIPT } from '../apps/api/src/dashboard/templates/template-preview';
import { LoginHooksService } from '../apps/api/src/login-hooks/login-hooks.service';
import { ReleasesService } from '../apps/api/src/releases/releases.service';
import { WebhooksService } from '../apps/api/src/webhooks/webhooks.service';
import { CommandQueue, EntryRecord, EventRecord, hashToken, QueueName, redisOptions, STARTERS } from '@app/shared';
import { Worker } from 'bullmq';
import { bearer, joinLine, signUp } from './support/flows';
import { api, codeIn, invitationsTo, line as confirmedInOrder } from './support/invitations';
import { Receiver, verifyStandard } from './support/receiver';
import { seedHistory } from './support/seed';
import { waitFor } from './support/wait';
import { Product, Stack } from './support/stack';
import { cookieParts, csrfIn, dashboardRoutes, form, logIn as logInAs, PASSWORD, setCookies, signIn } from './support/dashboard';
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

/** A paused release of the product's live mode, for the routes that name one. */
const releaseOf = async (stack: Stack, productId: string): Promise<string> =>
  (await stack.api.get(ReleasesService).create({ productId, mode: 'live' }, { count: 1, pattern: '0 9 * * 1', timeZone: 'UTC', paused: true })).id;

describe('dashboard: sign-in, sessions, CSRF, teams', () => {
  let stack: Stack;
  let acme: Product;
  let other: Product;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api', 'mailer'], env: { RATE_LIMIT_SIGNUP: '1000/1m', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
    acme = await stack.createProduct({ name: 'Acme <script>alert(1)</script>' });
    other = await stack.createProduct({ name: 'Other' });
    await stack.api.get(DashboardAuthService).createUser('ada@example.com', PASSWORD, acme.id);
    await stack.api.get(DashboardAuthService).createUser('bob@example.com', PASSWORD, other.id);
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

  it('Bull Board at /admin/queues: no session goes to the login, a team member gets 404, an operator sees every queue', async () => {
    for (const url of ['/admin/queues', '/admin/queues/api/queues']) {
      const anonymous = await page(url, '');
      expect([anonymous.status, anonymous.headers.location]).toEqual([303, '/dashboard/login']);
    }
    // To a user of a team the board is not there: the same answer as any unknown path, reads and writes alike.
    const { cookie } = await logIn('ada@example.com');
    const unknown = await page('/admin/nothing-here', cookie);
    for (const url of ['/admin/queues', '/admin/queues/api/queues', '/admin/queues/api/queues?activeQueue=mail']) {
      const refused = await page(url, cookie);
      expect([url, refused.status, refused.text]).toEqual([url, 404, unknown.text]);
    }
    for (const url of ['/admin/queues/api/queues/mail/pause', '/admin/queues/api/queues/mail/retry/failed']) {
      expect([url, (await stack.request({ method: 'PUT', url, headers: { cookie } })).status]).toEqual([url, 404]);
    }
    expect((await page('/dashboard', cookie)).text).not.toContain('/admin/queues');

    await stack.api.get(DashboardAuthService).createUser('ops@example.com', PASSWORD, null, { operator: true });
    const { cookie: operator } = await logIn('ops@example.com');
    expect((await page('/dashboard', operator)).text).toContain('<a href="/admin/queues"');
    const board = await page('/admin/queues', operator);
    expect(board.status).toBe(200);
    expect(board.text).toContain('<div id="root">');
    const queues = await page('/admin/queues/api/queues', operator);
    expect(queues.status).toBe(200);
    expect(queues.json().queues.map((queue: { name: string }) => queue.name).sort()).toEqual(['deliveries', 'invitations', 'releases']);
  });

  it('an operator retries and cleans failed jobs through the board', async () => {
    await stack.api.get(DashboardAuthService).createUser('ops@example.com', PASSWORD, null, { operator: true });
    const { cookie } = await logIn('ops@example.com');
    const queue = CommandQueue.open(QueueName.Deliveries, stack.config);
    // No webhooks app runs here: a worker of the test's own fails three jobs.
    const worker = new Worker(QueueName.Deliveries, async () => { throw new Error('the receiver is down'); }, {
      connection: { ...redisOptions(stack.config.REDIS_URL), maxRetriesPerRequest: null },
      prefix: stack.config.QUEUE_PREFIX,
    });
    try {
      for (const id of ['dlv_one', 'dlv_two', 'dlv_three']) await queue.add('deliver', { deliveryId: id }, { jobId: id, attempts: 1 });
      await waitFor(async () => (await queue.getFailedCount()) === 3, 'three failed jobs');
      await worker.close();
      // As the board's page sends them: a browser puts the page's Origin on every write.
      const origin = new URL(stack.config.PUBLIC_BASE_URL).origin;
      const put = (url: string) => stack.request({ method: 'PUT', url: `/admin/queues/api/queues/deliveries/${url}`, headers: { cookie, origin } });
      const listed = (await page('/admin/queues/api/queues?activeQueue=deliveries&status=failed', cookie)).json();
      const deliveries = listed.queues.find((candidate: { name: string }) => candidate.name === 'deliveries');
      expect(deliveries.readOnlyMode).toBe(false);
      expect(deliveries.jobs.map((job: { id: string }) => job.id).sort()).toEqual(['dlv_one', 'dlv_three', 'dlv_two']);

      expect((await put('dlv_one/retry')).status).toBe(204);
      expect(await queue.getJobState('dlv_one')).toBe('waiting');
      expect((await put('dlv_two/clean')).status).toBe(204);
      expect(await queue.getJob('dlv_two')).toBeUndefined();
      expect((await put('retry/failed')).status).toBe(200);
      expect(await queue.getJobState('dlv_three')).toBe('waiting');
      expect(await queue.getFailedCount()).toBe(0);
    } finally {
      await worker.close();
      await queue.close();
    }
  });

  it('Bull Board takes writes only from the service’s own origin: a foreign Origin or Referer, or neither, is 403 and changes nothing', async () => {
    await stack.api.get(DashboardAuthService).createUser('ops@example.com', PASSWORD, null, { operator: true });
    const { cookie } = await logIn('ops@example.com');
    const own = new URL(stack.config.PUBLIC_BASE_URL).origin;
    // No webhooks app runs here, so a job added to deliveries would stay to be seen.
    const queue = CommandQueue.open(QueueName.Deliveries, stack.config);
    const board = (method: 'POST' | 'PUT', action: string, headers: Record<string, string>, payload?: string) =>
      stack.request({ method, url: `/admin/queues/api/queues/deliveries/${action}`, headers: { cookie, ...headers }, payload });
    const json = { 'content-type': 'application/json' };
    const forged = async () => (await queue.getJobs(['waiting', 'active', 'delayed', 'prioritized', 'failed', 'completed'])).filter((job) => job.name === 'forged');
    try {
      const elsewhere: Record<string, string>[] = [
        { origin: 'https://attacker.example' },
        { origin: `${own}.attacker.example` },
        { origin: 'null' },
        { referer: 'https://attacker.example/admin/queues' },
        { referer: 'not a url' },
        { origin: 'https://attacker.example', referer: `${own}/admin/queues` },
        {},
      ];
      for (const headers of elsewhere) {
        const add = await board('POST', 'add', { ...headers, ...json }, JSON.stringify({ name: 'forged', data: { deliveryId: 'dlv_forged' } }));
        // What a form on another site can post without any script.
        const formPost = await board('POST', 'add', { ...headers, 'content-type': 'application/x-www-form-urlencoded' }, form({ name: 'forged' }));
        const pause = await board('PUT', 'pause', headers);
        expect([headers, add.status, formPost.status, pause.status]).toEqual([headers, 403, 403, 403]);
        expect(add.json()).toEqual({ error: { code: 'forbidden', message: expect.stringContaining('did not come from') } });
      }
      expect(await forged()).toEqual([]);
      expect(await queue.isPaused()).toBe(false);

      // Reads need neither header; the board's own page sends its writes with the service's Origin (or a Referer of it).
      expect((await page('/admin/queues/api/queues?activeQueue=deliveries', cookie)).status).toBe(200);
      expect((await board('PUT', 'pause', { origin: own })).status).toBe(200);
      expect(await queue.isPaused()).toBe(true);
      expect((await board('PUT', 'resume', { referer: `${own}/admin/queues/queue/deliveries` })).status).toBe(200);
      expect(await queue.isPaused()).toBe(false);
      expect((await board('POST', 'add', { origin: own, ...json }, JSON.stringify({ name: 'forged', data: { deliveryId: 'dlv_own' } }))).status).toBe(200);
      expect((await forged()).map((job) => job.data)).toEqual([{ deliveryId: 'dlv_own' }]);
    } finally {
      await queue.obliterate({ force: true });
      await queue.close();
    }
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
    expect([response.status, response.headers.location]).toEqual([303, `/dashboard/${acme.id}/test/line`]);
    const after = await show(String(response.headers.location));
    expect(after).toContain('2 invited');
    expect(after).toContain('Nobody is waiting');
    expect(invitationsTo(stack, 'second@example.com')).toHaveLength(1);
    expect(invitationsTo(stack, 'third@example.com')).toHaveLength(1);

    const refused = await stack.request({
      method: 'POST',
      url: `/dashboard/${acme.id}/test/line/invite-next`,
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ _csrf: csrf, count: '1001' }).toString(),
    });
    expect([refused.status, refused.text]).toEqual([400, expect.stringContaining('Invite from 1 to 1,000 people at a time.')]);
  });

  it('exports the filtered entries as CSV, every page of them', async () => {
    const csv = await stack.request({ method: 'GET', url: `/dashboard/${acme.id}/test/entries.csv?state=invited`, headers: { cookie } });
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(csv.headers['content-disposition']).toContain('attachment');
    const lines = csv.text.trim().split('\r\n');
    expect(lines[0]).toBe('id,email,state,createdAt,confirmedAt,invitedAt,redeemedAt,referralCode,referrals,locale,utm_source,utm_medium,utm_campaign,utm_term,utm_content,referrer,landing_page,answers');
    expect(lines.slice(1).map((line) => line.split(',')[1]).sort()).toEqual(['guest@example.com', 'second@example.com', 'third@example.com']);
    expect((await stack.request({ method: 'GET', url: `/dashboard/${other.id}/test/entries.csv`, headers: { cookie } })).status).toBe(404);

    // Thousands of entries: streamed page after page, each once, newest first.
    const big = await stack.createProduct({ name: 'Big' });
    await seedHistory(stack.db, { productId: big.id, mode: 'live' }, 2500, 'csv');
    await stack.api.get(DashboardAuthService).createUser('ada@example.com', PASSWORD, big.id);
    const all = (await stack.request({ method: 'GET', url: `/dashboard/${big.id}/live/entries.csv`, headers: { cookie } })).text.trim().split('\r\n').slice(1);
    expect(all).toHaveLength(2500);
    expect(new Set(all.map((line) => line.split(',')[0])).size).toBe(2500);
    const created = all.map((line) => line.split(',')[3]);
    expect(created).toEqual([...created].sort().reverse());
    const pending = (await stack.request({ method: 'GET', url: `/dashboard/${big.id}/live/entries.csv?state=pending&email=csv-1`, headers: { cookie } })).text;
    expect(pending.trim().split('\r\n').slice(1).every((line) => line.includes(',pending,') && line.includes('csv-1'))).toBe(true);
  });

  it('API keys: a new pair shows its secret once and works; revoking makes it 401; last use is shown', async () => {
    const created = await stack.request({
      method: 'POST',
      url: `/dashboard/${acme.id}/test/keys`,
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ _csrf: csrf }).toString(),
    });
    expect(created.status).toBe(303);
    const secret = /<code data-secret>(sk_test_[A-Za-z0-9_-]+)<\/code>/.exec(await show(String(created.headers.location)))![1];
    const list = () => stack.request({ method: 'GET', url: '/api/v1/entries', headers: { authorization: `Bearer ${secret}` } });
    expect((await list()).status).toBe(200);
    await waitFor(async () => (await stack.db.query(`SELECT 1 FROM api_keys WHERE hint LIKE $1 AND last_used_at IS NOT NULL`, [`${secret.slice(0, 12)}%`])).length === 1, 'last use to be recorded');
    const page = await show(`/dashboard/${acme.id}/test/keys`);
    const row = page.split('<tr>').find((part) => part.includes(secret.slice(0, 12)))!;
    expect(row).toMatch(/<td>secret<\/td><td>[\d-]+ [\d:]+ UTC<\/td><td>[\d-]+ [\d:]+ UTC<\/td>/);
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
    expect([created.status, created.headers.location]).toEqual([303, base]);
    const secret = /<code data-secret>(whsec_[A-Za-z0-9_-]+)<\/code>/.exec((await stack.request({ method: 'GET', url: base, headers: { cookie } })).text)![1];
    const [endpoint] = await stack.db.query('SELECT id, events, mode FROM webhook_endpoints WHERE product_id = $1', [acme.id]);
    expect(endpoint).toMatchObject({ events: ['entry.invited', 'entry.redeemed'], mode: 'live' });
    expect((await stack.request({ method: 'GET', url: base, headers: { cookie } })).text).not.toContain(secret);

    expect((await post(`${base}/${endpoint.id}/test`)).status).toBe(303);
    expect((await stack.request({ method: 'GET', url: base, headers: { cookie } })).text).toContain('webhook.test event is on its way');
    const [delivery] = await receiver.waitFor(1);
    expect(delivery.headers['service-event']).toBe('webhook.test');
    await waitFor(async () => (await stack.request({ method: 'GET', url: `${base}/${endpoint.id}`, headers: { cookie } })).text.includes('<span class="pill succeeded">succeeded</span>'), 'the log to show the delivery');
    const log = (await stack.request({ method: 'GET', url: `${base}/${endpoint.id}`, headers: { cookie } })).text;
    expect(log).toContain('webhook.test');
    expect(log).toMatch(/ · 200 · \d+ ms/);
    const delivered = /webhook\.test<br><span class="muted">evt_[^ ]+ · (dlv_[^<]+)</.exec(log)![1];
    const again = await post(`${base}/${endpoint.id}/deliveries/${delivered}/retry`);
    expect([again.status, again.text]).toEqual([409, expect.stringContaining('This delivery is not waiting for a retry.')]);

    expect((await post(`${base}/${endpoint.id}/disable`)).status).toBe(303);
    expect((await stack.request({ method: 'GET', url: base, headers: { cookie } })).text).toContain('disabled');
    expect((await post(`${base}/${endpoint.id}/rotate`)).status).toBe(303);
    const rotated = (await stack.request({ method: 'GET', url: base, headers: { cookie } })).text;
    expect(/<code data-secret>(whsec_[A-Za-z0-9_-]+)<\/code>/.exec(rotated)![1]).not.toBe(secret);
    const refused = await post(base, [['url', 'ftp://example.com'], ['events', 'entry.invited']]);
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('https');
  });

  it('the form chooses the signature format (ours by default); a Standard Webhooks endpoint shows it, and its test event verifies with standardwebhooks', async () => {
    const base = `/dashboard/${acme.id}/test/webhooks`;
    const show = async (url: string) => (await stack.request({ method: 'GET', url, headers: { cookie } })).text;
    const form = await show(base);
    expect(form).toContain('<input type="radio" name="signatureFormat" value="service" checked>');
    expect(form).toContain('<input type="radio" name="signatureFormat" value="standard">');

    const standard = await new Receiver().start();
    try {
      const created = await post(base, [['url', `${standard.url}/standard`], ['events', 'entry.invited'], ['signatureFormat', 'standard']]);
      expect([created.status, created.headers.location]).toEqual([303, base]);
      const secret = /<code data-secret>(whsec_[A-Za-z0-9+/=]+)<\/code>/.exec(await show(base))![1];
      const [endpoint] = await stack.db.query('SELECT id, signature_format FROM webhook_endpoints WHERE url = $1', [`${standard.url}/standard`]);
      expect(endpoint.signature_format).toBe('standard');
      await post(base, [['url', `${standard.url}/ours`], ['events', 'entry.invited']]);
      const [ours] = await stack.db.query('SELECT signature_format FROM webhook_endpoints WHERE url = $1', [`${standard.url}/ours`]);
      expect(ours.signature_format).toBe('service');

      const rows = (await show(base)).split('<tr>');
      expect(rows.find((row) => row.includes(`${standard.url}/standard`))).toContain('Standard Webhooks');
      expect(rows.find((row) => row.includes(`${standard.url}/ours`))).toContain('Service-Signature');
      expect(await show(`${base}/${endpoint.id}`)).toContain('Standard Webhooks');

      expect((await post(`${base}/${endpoint.id}/test`)).status).toBe(303);
      const [delivery] = await standard.waitFor(1);
      expect(verifyStandard(delivery, secret)).toMatchObject({ type: 'webhook.test', mode: 'test' });
      expect(delivery.headers['service-event']).toBe('webhook.test');

      expect((await post(`${base}/${endpoint.id}/rotate`)).status).toBe(303);
      expect(await show(base)).toMatch(/<code data-secret>whsec_[A-Za-z0-9+/]{43}=<\/code>/);

      const before = await stack.db.query('SELECT count(*)::int AS n FROM webhook_endpoints');
      const refused = await post(base, [['url', `${standard.url}/stripe`], ['events', 'entry.invited'], ['signatureFormat', 'stripe']]);
      expect([refused.status, refused.text]).toEqual([400, expect.stringContaining('Choose how deliveries are signed')]);
      expect(await stack.db.query('SELECT count(*)::int AS n FROM webhook_endpoints')).toEqual(before);
    } finally {
      await standard.stop();
    }
  });

  it('another product’s endpoints are out of reach', async () => {
    const other = await stack.createProduct({ name: 'Other' });
    const foreign = await stack.api.get(WebhooksService).create({ productId: other.id, mode: 'live', url: receiver.url });
    expect((await stack.request({ method: 'GET', url: `/dashboard/${acme.id}/live/webhooks/${foreign.id}`, headers: { cookie } })).status).toBe(404);
    expect((await post(`/dashboard/${acme.id}/live/webhooks/${foreign.id}/delete`)).status).toBe(404);
    expect((await stack.db.query('SELECT 1 FROM webhook_endpoints WHERE id = $1', [foreign.id])).length).toBe(1);
  });
});

describe('dashboard: overview and product settings', () => {
  let stack: Stack;
  let acme: Product;
  let cookie: string;
  let csrf: string;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api', 'mailer'], env: { RATE_LIMIT_SIGNUP: '1000/1m' } });
    acme = await stack.createProduct({ name: 'Acme' });
    await stack.api.get(DashboardAuthService).createUser('ada@example.com', PASSWORD, acme.id);
    ({ cookie, csrf } = await signIn(stack, 'ada@example.com'));
  });
  afterAll(() => stack.stop());

  const show = async (url: string) => (await stack.request({ method: 'GET', url, headers: { cookie } })).text;
  /** A settings section's form: the line's, valid but for the fields given, or another section's fields as given. */
  const save = (fields: Record<string, string>, section = 'line') =>
    stack.request({
      method: 'POST',
      url: `/dashboard/${acme.id}/live/settings/${section}`,
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: form({ _csrf: csrf, ...(section === 'line' ? { name: 'Acme', inviteUrl: '', signupUrl: '', referralPlaces: '1' } : {}), ...fields }),
    });
  const tile = (page: string, label: string) => new RegExp(`${label}</div><div class="count">([\\d,]+)<`).exec(page)?.[1];
  const total = (page: string, label: string) => new RegExp(`${label}: <strong>(\\d+)</strong>`).exec(page)?.[1];

  it('the overview counts entries by state and, per day from the events, what happened in this mode', async () => {
    const pk = acme.keys.live.publishable;
    const [first] = [await joinLine(stack, pk, 'one@example.com'), await joinLine(stack, pk, 'two@example.com')];
    await signUp(stack, pk, 'pending@example.com');
    const gone = await joinLine(stack, pk, 'gone@example.com');
    const client = api(stack, acme.keys.live.secret);
    expect((await client.invite(first.id)).status).toBe(200);
    expect((await client.redeem(codeIn(invitationsTo(stack, 'one@example.com')[0]))).status).toBe(200);
    expect((await client.invite(gone.id)).status).toBe(200);
    await stack.request({ method: 'DELETE', url: `/api/v1/entries/${gone.id}`, headers: bearer(acme.keys.live.secret) });
    await joinLine(stack, acme.keys.test.publishable, 'test-mode@example.com');
    // Days before the chart's 30 are left out.
    await stack.db.query(
      "INSERT INTO daily_event_counts (product_id, mode, day, type, count) VALUES ($1, 'live', (now() AT TIME ZONE 'UTC')::date - 30, 'entry.created', 5)",
      [acme.id],
    );

    // The day counts move with the events, in the same transactions.
    const counted = "SELECT type, sum(count)::int AS n FROM daily_event_counts WHERE product_id = $1 AND day > (now() AT TIME ZONE 'UTC')::date - 30 GROUP BY type ORDER BY type";
    const recorded = 'SELECT type, count(*)::int AS n FROM events WHERE product_id = $1 GROUP BY type ORDER BY type';
    expect(await stack.db.query(counted, [acme.id])).toEqual(await stack.db.query(recorded, [acme.id]));

    const page = await show(`/dashboard/${acme.id}/live/overview`);
    expect([tile(page, 'Entries'), tile(page, 'Waiting for confirmation'), tile(page, 'In line'), tile(page, 'Invited'), tile(page, 'Redeemed')]).toEqual(['3', '1', '1', '0', '1']);
    expect([total(page, 'sign-ups'), total(page, 'confirmations'), total(page, 'invitations'), total(page, 'redemptions')]).toEqual(['4', '3', '2', '1']);
    const today = new Date().toISOString().slice(0, 10);
    expect(page).toContain(`<title>${today}: 4 sign-ups</title>`);
    expect(page.match(/<rect /g)).toHaveLength(4 * 30);
    const test = await show(`/dashboard/${acme.id}/test/overview`);
    expect([tile(test, 'Entries'), total(test, 'sign-ups')]).toEqual(['1', '1']);
  });

  it('settings change the name, the mail sender, the invite URL and the line’s referral places', async () => {
    const pk = acme.keys.test.publishable;
    const early = await joinLine(stack, pk, 'early@example.com');
    // With 1 place per referral friendly (key 3 − 1) passes middle (2) but not early (1).
    await joinLine(stack, pk, 'middle@example.com');
    const friendly = await joinLine(stack, pk, 'friendly@example.com');
    await joinLine(stack, pk, 'friend@example.com', friendly.referralCode!);
    const line = async () =>
      [...(await show(`/dashboard/${acme.id}/test/line`)).matchAll(/<a href="[^"]+">([^<]+@example\.com)<\/a>/g)]
        .map((match) => match[1])
        .filter((email) => ['early@example.com', 'friendly@example.com'].includes(email));
    expect(await line()).toEqual(['early@example.com', 'friendly@example.com']);

    const saved = await save({ name: 'Acme <b>2</b>', inviteUrl: 'https://acme.example/join', referralPlaces: '5' });
    expect([saved.status, saved.headers.location]).toEqual([303, `/dashboard/${acme.id}/live/settings/line`]);
    const page = await show(String(saved.headers.location));
    expect(page).toContain('Saved.');
    expect(page).toContain('Acme &lt;b&gt;2&lt;/b&gt;');
    const sender = await save({ senderName: 'The Acme Team' }, 'mail');
    expect([sender.status, sender.headers.location]).toEqual([303, `/dashboard/${acme.id}/live/settings/mail`]);
    expect(await line()).toEqual(['friendly@example.com', 'early@example.com']);
    const [row] = await stack.db.query('SELECT line_key, confirmation_seq FROM entries WHERE id = $1', [friendly.id]);
    expect(Number(row.line_key)).toBe(Number(row.confirmation_seq) - 5);

    expect((await api(stack, acme.keys.test.secret).invite(early.id)).status).toBe(200);
    const [mail] = invitationsTo(stack, 'early@example.com');
    expect(mail.from).toContain('The Acme Team');
    expect(codeIn(mail)).toBeTruthy();
    expect(mail.text).toContain('https://acme.example/join?invite=');
    expect(mail.subject).toContain('Acme <b>2</b>');
  });

  it('settings refuse what is not valid, in words, and change nothing', async () => {
    const before = await stack.db.query('SELECT * FROM products WHERE id = $1', [acme.id]);
    const sender = await save({ senderName: 'Evil\r\nBcc: victim@example.com' }, 'mail');
    expect([sender.status, sender.text]).toEqual([400, expect.stringContaining('control characters')]);
    for (const [fields, words] of [
      [{ name: '' }, 'The name cannot be empty'],
      [{ name: 'x'.repeat(101) }, 'The name is at most 100 characters'],
      [{ inviteUrl: 'javascript:alert(1)' }, 'The invite URL must be an http(s) URL'],
      [{ signupUrl: 'not a url' }, 'The sign-up page URL must be an http(s) URL'],
      [{ referralPlaces: '-1' }, 'Referral places must be a whole number from 0 to 9999'],
      [{ referralPlaces: '1.5' }, 'Referral places must be a whole number from 0 to 9999'],
      [{ referralPlaces: '' }, 'Referral places must be a whole number from 0 to 9999'],
      [{ referralPlaces: '10000' }, 'Referral places must be a whole number from 0 to 9999'],
    ] as [Record<string, string>, string][]) {
      const refused = await save(fields);
      expect([fields, refused.status]).toEqual([fields, 400]);
      expect(refused.text).toContain(words.replace(/'/g, '&#39;'));
    }
    expect(await stack.db.query('SELECT * FROM products WHERE id = $1', [acme.id])).toEqual(before);
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

describe('dashboard: the development inbox (SMTP_URL unset)', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api', 'mailer'], env: { SMTP_URL: '' } });
  });
  afterAll(() => stack.stop());

  it('is linked from the top bar and shows the mails the mailer would have sent', async () => {
    const acme = await stack.createProduct({ name: 'Acme' });
    await stack.api.get(DashboardAuthService).createUser('ada@example.com', PASSWORD, acme.id);
    const { cookie } = await signIn(stack, 'ada@example.com');
    expect((await stack.request({ method: 'GET', url: '/dashboard', headers: { cookie } })).text).toContain('<a href="/dev/mail"');

    await signUp(stack, acme.keys.live.publishable, 'inbox@example.com');
    await waitFor(async () => (await stack.request({ method: 'GET', url: '/dev/mail' })).text.includes('to inbox@example.com'), 'the mail in the inbox');
    const inbox = (await stack.request({ method: 'GET', url: '/dev/mail' })).text;
    const mail = await stack.request({ method: 'GET', url: /href="(\/dev\/mail\/[^"]+)"/.exec(inbox)![1] });
    expect(mail.text).toContain(`${stack.config.PUBLIC_BASE_URL}/confirm/`);
  });

  it('a mail id that is not in the inbox answers a 404 page, whatever it looks like (400 when the URL cannot be decoded)', async () => {
    const ids = ['00000000-0000-0000-0000-000000000000', '42', '-1', '9'.repeat(400), '%C3%A9%F0%9F%98%80', '%00', '..%2F..%2Fdashboard'];
    for (const [id, status] of [...ids.map((id) => [id, 404] as const), ['%E0%A4%A', 400] as const]) {
      const answer = await stack.request({ method: 'GET', url: `/dev/mail/${id}` });
      expect([id, answer.status, answer.headers['content-type']]).toEqual([id, status, 'text/html; charset=utf-8']);
    }
  });

  it('is not linked, and not there, when mail goes to an SMTP server', async () => {
    const other = await Stack.start({ apps: ['api'] });
    try {
      const acme = await other.createProduct();
      await other.api.get(DashboardAuthService).createUser('ada@example.com', PASSWORD, acme.id);
      const { cookie } = await signIn(other, 'ada@example.com');
      expect((await other.request({ method: 'GET', url: '/dashboard', headers: { cookie } })).text).not.toContain('/dev/mail');
      expect((await other.request({ method: 'GET', url: '/dev/mail' })).status).toBe(404);
    } finally {
      await other.stop();
    }
  });
});

describe('dashboard: every action answers with a redirect (post/redirect/get)', () => {
  let stack: Stack;
  let acme: Product;
  let receiver: Receiver;
  let cookie: string;
  let csrf: string;

  beforeAll(async () => {
    stack = await Stack.start({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', RATE_LIMIT_SIGNUP: '1000/1m' } });
    receiver = await new Receiver().start();
    acme = await stack.createProduct({ name: 'Acme' });
    await stack.api.get(DashboardAuthService).createUser('ada@example.com', PASSWORD, acme.id);
    ({ cookie, csrf } = await signIn(stack, 'ada@example.com'));
  });
  afterAll(async () => {
    await receiver.stop();
    await stack.stop();
  });

  const post = (url: string, fields: Record<string, string> = {}, session = { cookie, csrf }) =>
    stack.request({ method: 'POST', url, headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: form({ _csrf: session.csrf, ...fields }) });
  const show = (url: string) => stack.request({ method: 'GET', url, headers: { cookie } });
  /** The session's notice as stored, sealed; null once it was shown. */
  const storedFlash = async (): Promise<Buffer | null> =>
    (await stack.db.query('SELECT flash FROM dashboard_sessions WHERE hash = $1', [hashToken(cookie.split('=')[1])]))[0].flash;

  it('every dashboard POST answers 303 to a page that a GET shows', async () => {
    const pk = acme.keys.live.publishable;
    const [toInvite, toReinvite, toMove, toDelete] = await confirmedInOrder(stack, pk, ['invite@example.com', 'reinvite@example.com', 'move@example.com', 'delete@example.com']);
    const referrer = await joinLine(stack, pk, 'next@example.com');
    await joinLine(stack, pk, 'next-friend@example.com', referrer.referralCode!);
    const [referral] = await stack.db.query('SELECT id FROM referrals WHERE referrer_id = $1', [referrer.id]);
    expect((await api(stack, acme.keys.live.secret).invite(toReinvite.id)).status).toBe(200);
    const webhooks = stack.api.get(WebhooksService);
    const spare = await webhooks.create({ productId: acme.id, mode: 'live', url: `${receiver.url}/spare` });
    // A delivery that waits for its retry: nothing listens on port 9.
    const failing = await webhooks.create({ productId: acme.id, mode: 'live', url: 'http://127.0.0.1:9/hook' });
    const { eventId } = await webhooks.sendTest(failing.id);
    const waiting = () => stack.db.query("SELECT id FROM deliveries WHERE event_id = $1 AND status = 'pending' AND next_attempt_at IS NOT NULL", [eventId]);
    await waitFor(async () => (await waiting()).length === 1, 'the test event’s delivery to wait for its retry');
    const [delivery] = await waiting();
    const deliveries = CommandQueue.open(QueueName.Deliveries, stack.config);
    await waitFor(async () => (await deliveries.getJobState(delivery.id)) === 'delayed', 'its job to wait for the retry').finally(() => deliveries.close());
    const [key] = await stack.db.query("SELECT id FROM api_keys WHERE product_id = $1 AND mode = 'live' AND kind = 'secret'", [acme.id]);
    const hook = await stack.api.get(LoginHooksService).create({ productId: acme.id, mode: 'live' }, { provider: 'kratos', failOpen: false });
    const release = await releaseOf(stack, acme.id);
    const template = { kind: 'invitation', locale: 'fr' };

    type Request = { params?: Record<string, string>; fields?: Record<string, string>; session?: { cookie: string; csrf: string } };
    const loginPage = await stack.request({ method: 'GET', url: '/dashboard/login' });
    // Requests that succeed, for every POST route; the routes come from the controller's metadata below.
    const requests: Record<string, Request[]> = {
      login: [],
      logout: [{ session: await signIn(stack, 'ada@example.com') }],
      ':productId/:mode/settings/:section': [{ params: { section: 'line' }, fields: { name: 'Acme', inviteUrl: '', signupUrl: '', referralPlaces: '1' } }],
      ':productId/:mode/entries/:id/:action': [
        { params: { id: toInvite.id, action: 'invite' } },
        { params: { id: toReinvite.id, action: 'reinvite' } },
        { params: { id: toMove.id, action: 'move-up' }, fields: { places: '2' } },
        { params: { id: toDelete.id, action: 'delete' } },
      ],
      ':productId/:mode/entries/:id/referrals/:referralId/:decision': [
        { params: { id: referrer.id, referralId: referral.id, decision: 'revoke' } },
        { params: { id: referrer.id, referralId: referral.id, decision: 'grant' } },
      ],
      ':productId/:mode/entries/bulk': [{ fields: { action: 'move-up', places: '1', ids: toMove.id } }],
      ':productId/:mode/line/invite-next': [{ fields: { count: '1' } }],
      ':productId/:mode/undeliverable/:id/clear': [{ params: { id: toMove.id } }],
      // A form without its file: refused, and shown on the import page all the same (the upload itself: dashboard-import tests).
      ':productId/:mode/entries/import': [{ fields: {} }],
      // A form without a held upload: refused, and shown on the import page all the same.
      ':productId/:mode/entries/import/staged': [{ fields: {} }],
      ':productId/:mode/keys': [{}],
      ':productId/:mode/keys/:keyId/revoke': [{ params: { keyId: key.id } }],
      ':productId/:mode/sign-up-hooks': [{ fields: { provider: 'supabase' } }, { fields: { provider: 'kratos', failOpen: 'on' } }],
      ':productId/:mode/sign-up-hooks/:hookId/revoke': [{ params: { hookId: hook.id } }],
      ':productId/:mode/webhooks': [{ fields: { url: `${receiver.url}/new`, events: 'entry.invited' } }],
      ':productId/:mode/webhooks/:endpointId/:action': ['test', 'rotate', 'disable', 'enable', 'delete'].map((action) => ({ params: { endpointId: spare.id, action } })),
      ':productId/:mode/webhooks/:endpointId/deliveries/:deliveryId/retry': [{ params: { endpointId: failing.id, deliveryId: delivery.id } }],
      ':productId/:mode/releases': [{ fields: { count: '1', pattern: '0 9 * * 1', timeZone: 'Europe/Berlin' } }],
      ':productId/:mode/releases/:releaseId/:action': ['pause', 'resume', 'run', 'delete'].map((action) => ({ params: { releaseId: release, action } })),
      ':productId/:mode/templates/:kind/:locale': [{ params: template, fields: { ...STARTERS.invitation } }],
      ':productId/:mode/templates/:kind/:locale/test': [{ params: template, fields: { ...STARTERS.invitation } }],
      ':productId/:mode/templates/:kind/:locale/reset': [{ params: template }],
      // The editor's script reads the preview as JSON; no page follows.
      ':productId/:mode/templates/:kind/:locale/preview': [],
    };
    const routes = dashboardRoutes()
      .filter(({ method }) => method === 'POST')
      .map(({ path }) => path);
    expect(routes.sort()).toEqual(Object.keys(requests).sort());

    const answers: { url: string; status: number; page: number }[] = [];
    const login = await stack.request({
      method: 'POST',
      url: '/dashboard/login',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: String(loginPage.headers['set-cookie']).split(';')[0] },
      payload: form({ email: 'ada@example.com', password: PASSWORD, _csrf: csrfIn(loginPage.text) }),
    });
    answers.push({ url: '/dashboard/login', status: login.status, page: (await show(String(login.headers.location))).status });
    for (const [path, list] of Object.entries(requests)) {
      for (const request of list) {
        const ids: Record<string, string> = { productId: acme.id, mode: 'live', ...request.params };
        const url = `/dashboard/${path.replace(/:(\w+)/g, (_, param: string) => ids[param])}`;
        const response = await post(url, request.fields, request.session);
        const location = response.headers.location;
        answers.push({ url, status: response.status, page: location ? (await show(String(location))).status : 0 });
      }
    }
    expect(answers.length).toBeGreaterThanOrEqual(17);
    expect(answers).toEqual(answers.map(({ url }) => ({ url, status: 303, page: 200 })));
  });

  it('a new key pair’s secret shows once, on the page after the redirect, sealed meanwhile; a reload shows nothing and creates nothing', async () => {
    const base = `/dashboard/${acme.id}/test/keys`;
    const keys = async () => (await stack.db.query("SELECT count(*)::int AS n FROM api_keys WHERE product_id = $1 AND mode = 'test'", [acme.id]))[0].n;
    const before = await keys();
    const created = await post(base);
    expect([created.status, created.headers.location]).toEqual([303, base]);
    const sealed = await storedFlash();
    expect(sealed).toBeInstanceOf(Buffer);
    // Another page leaves it for the page it is meant for.
    expect((await show(`/dashboard/${acme.id}/test/webhooks`)).text).not.toContain('<code data-secret>');
    const page = await show(base);
    const secret = /<code data-secret>(sk_test_[A-Za-z0-9_-]+)<\/code>/.exec(page.text)![1];
    expect((await stack.request({ method: 'GET', url: '/api/v1/entries', headers: bearer(secret) })).status).toBe(200);
    expect(sealed!.toString('latin1')).not.toMatch(/sk_test_|pk_test_/);
    expect(await storedFlash()).toBeNull();

    const reload = await show(base);
    expect(reload.status).toBe(200);
    expect(reload.text).not.toContain('<code data-secret>');
    expect(await keys()).toBe(before + 2);
  });

  it('a new endpoint’s secret and a rotated one show once; a reload adds no endpoint and rotates nothing', async () => {
    const base = `/dashboard/${acme.id}/test/webhooks`;
    const endpoints = () => stack.db.query('SELECT id, secret FROM webhook_endpoints WHERE product_id = $1 AND mode = $2 ORDER BY id', [acme.id, 'test']);
    const created = await post(base, { url: `${receiver.url}/once`, events: 'entry.invited' });
    expect([created.status, created.headers.location]).toEqual([303, base]);
    const secret = /<code data-secret>(whsec_[A-Za-z0-9_-]+)<\/code>/.exec((await show(base)).text)![1];
    expect((await show(base)).text).not.toContain('<code data-secret>');
    const [endpoint] = await endpoints();

    const rotated = await post(`${base}/${endpoint.id}/rotate`);
    expect([rotated.status, rotated.headers.location]).toEqual([303, base]);
    const next = /<code data-secret>(whsec_[A-Za-z0-9_-]+)<\/code>/.exec((await show(base)).text)![1];
    expect(next).not.toBe(secret);
    const after = await endpoints();
    expect((await show(base)).text).not.toContain('<code data-secret>');
    expect(await endpoints()).toEqual(after);
    expect(after).toHaveLength(1);
  });

  it('invite the next N: the result shows once after the redirect; a reload invites nobody else', async () => {
    const pk = acme.keys.test.publishable;
    await confirmedInOrder(stack, pk, ['first-in-line@example.com', 'second-in-line@example.com']);
    const base = `/dashboard/${acme.id}/test/line`;
    const invited = async () => (await stack.db.query("SELECT count(*)::int AS n FROM entries WHERE product_id = $1 AND mode = 'test' AND state = 'invited'", [acme.id]))[0].n;
    const response = await post(`${base}/invite-next`, { count: '1' });
    expect([response.status, response.headers.location]).toEqual([303, base]);
    expect((await show(base)).text).toContain('1 invited.');
    const reload = await show(base);
    expect(reload.text).not.toContain('invited.');
    expect(await invited()).toBe(1);
    expect(invitationsTo(stack, 'first-in-line@example.com')).toHaveLength(1);
    expect(invitationsTo(stack, 'second-in-line@example.com')).toHaveLength(0);
  });
});
