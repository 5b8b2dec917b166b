import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { PASSWORD, signIn } from './support/dashboard';
import { bearer, signUp } from './support/flows';
import { invitationStack } from './support/invitations';
import { Product, Stack } from './support/stack';
import { waitFor } from './support/wait';

describe('security headers', () => {
  let stack: Stack;
  let product: Product;

  beforeAll(async () => {
    ({ stack, product } = await invitationStack());
  });
  afterAll(() => stack.stop());

  const get = async (url: string, headers: Record<string, string> = {}) => (await stack.request({ method: 'GET', url, headers })).headers;
  const LOCKED = "default-src 'none';style-src 'unsafe-inline';img-src 'self';form-action 'self';base-uri 'none';frame-ancestors 'none'";

  it('every page and answer: nothing loaded from elsewhere, never framed, no sniffing, no referrer', async () => {
    await signUp(stack, product.keys.test.publishable, 'headers@example.com');
    const confirm = new URL((await stack.mail.waitFor('headers@example.com')).text.match(/http\S+\/confirm\/\S+/)![0]).pathname;
    await stack.api.get(DashboardAuthService).createUser('headers@example.com', PASSWORD, product.id);
    const { cookie } = await signIn(stack, 'headers@example.com');
    const pk = product.keys.test.publishable;
    const asked = await stack.request({ method: 'POST', url: `/w/${pk}/my-data`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'email=headers%40example.com' });
    expect(asked.status).toBe(303);
    const dataMail = () => stack.mail.to('headers@example.com').find((mail) => mail.subject.includes('your data'));
    await waitFor(() => dataMail() !== undefined, 'the my-data mail');
    const myData = new URL(dataMail()!.text.match(/http\S+\/my-data\/\S+/)![0]).pathname;
    for (const [url, headers] of [
      [confirm, {}],
      [myData, {}],
      [`${myData}/delete`, {}],
      ['/dashboard/login', {}],
      [`/dashboard/${product.id}/live/entries`, { cookie }],
      ['/api/v1/entries', bearer(product.keys.live.secret)],
      ['/no-such-page', {}],
    ] as const) {
      const answer = await get(url, headers);
      expect([url, answer['content-security-policy']]).toEqual([url, LOCKED]);
      expect([url, answer['x-content-type-options'], answer['referrer-policy']]).toEqual([url, 'nosniff', 'no-referrer']);
    }
  });

  it("a script of the product's own site may post the sign-up as JSON (any origin: the publishable key is public); no other route answers another origin", async () => {
    const origin = { origin: 'https://acme.example' };
    const preflight = await stack.request({
      method: 'OPTIONS',
      url: '/public/v1/signups',
      headers: { ...origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers).toMatchObject({ 'access-control-allow-origin': '*', 'access-control-allow-methods': 'POST', 'access-control-allow-headers': 'content-type' });
    const signUp = (email: string) => stack.request({ method: 'POST', url: '/public/v1/signups', headers: origin, body: { key: product.keys.test.publishable, email } });
    const [received, refused] = [await signUp('cors@example.com'), await signUp('not an address')];
    expect([received.status, received.headers['access-control-allow-origin']]).toEqual([202, '*']);
    expect([refused.status, refused.json().error.code, refused.headers['access-control-allow-origin']]).toEqual([400, 'invalid_email', '*']);

    const api = await stack.request({ method: 'GET', url: '/api/v1/entries', headers: { ...origin, ...bearer(product.keys.test.secret) } });
    const apiPreflight = await stack.request({ method: 'OPTIONS', url: '/api/v1/entries', headers: { ...origin, 'access-control-request-method': 'GET' } });
    expect([api.status, api.headers['access-control-allow-origin']]).toEqual([200, undefined]);
    expect([apiPreflight.status, apiPreflight.headers['access-control-allow-origin']]).toEqual([404, undefined]);
  });

  it("the hosted sign-up form, and the form that asks for a my-data link, may be framed by the product's own site, and still load nothing from elsewhere", async () => {
    const pk = product.keys.live.publishable;
    for (const url of [`/w/${pk}`, `/w/${pk}/sent`, `/w/${pk}/my-data`, `/w/${pk}/my-data/sent`]) {
      const answer = await get(url);
      expect(answer['content-security-policy']).toBe(LOCKED.replace(";frame-ancestors 'none'", ''));
      expect(answer['x-frame-options']).toBeUndefined();
    }
  });

  it("the status page runs our own /share.js (by 'self', fetching nothing), and only once it shows a referral link", async () => {
    await signUp(stack, product.keys.test.publishable, 'sharer@example.com');
    const confirm = new URL((await stack.mail.waitFor('sharer@example.com')).text.match(/http\S+\/confirm\/\S+/)![0]).pathname;
    expect((await get(confirm))['content-security-policy']).toBe(LOCKED);
    expect((await stack.request({ method: 'POST', url: confirm })).status).toBe(303);
    const status = await stack.request({ method: 'GET', url: confirm });
    expect(status.text).toContain('<script src="/share.js" defer></script>');
    expect(status.headers['content-security-policy']).toBe(`${LOCKED};script-src 'self'`);
    const script = await stack.request({ method: 'GET', url: '/share.js' });
    expect([script.status, script.headers['content-type']]).toEqual([200, 'text/javascript; charset=utf-8']);
    expect(script.text).toContain('navigator.share');
  });

  it('Bull Board, an operator tool with page assets of its own, keeps its own policy', async () => {
    await stack.api.get(DashboardAuthService).createUser('operator@example.com', PASSWORD, product.id, { operator: true });
    const { cookie } = await signIn(stack, 'operator@example.com');
    const board = await stack.request({ method: 'GET', url: '/admin/queues', headers: { cookie } });
    expect(board.status).toBe(200);
    expect(board.headers['content-security-policy']).toBeUndefined();
  });
});
