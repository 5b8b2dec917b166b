import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { LoginHooksService } from '../apps/api/src/login-hooks/login-hooks.service';
import { WebhooksService } from '../apps/api/src/webhooks/webhooks.service';
import { CommandQueue, hashToken, QueueName, STARTERS } from '@app/shared';
import { bearer, joinLine } from './support/flows';
import { api, invitationsTo, line as confirmedInOrder } from './support/invitations';
import { Receiver } from './support/receiver';
import { waitFor } from './support/wait';
import { Product, Stack } from './support/stack';
import { csrfIn, dashboardRoutes, form, PASSWORD, releaseOf, signIn } from './support/dashboard';

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
