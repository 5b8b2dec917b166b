import { DashboardAuthService } from '../apps/api/src/dashboard/dashboard-auth.service';
import { PASSWORD, signIn } from './support/dashboard';
import { bearer, signUp } from './support/flows';
import { invitationStack } from './support/invitations';
import { Product, Stack } from './support/stack';

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
    for (const [url, headers] of [
      [confirm, {}],
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

  it("the hosted sign-up form may be framed by the product's own site, and still loads nothing from elsewhere", async () => {
    for (const url of [`/w/${product.keys.live.publishable}`, `/w/${product.keys.live.publishable}/sent`]) {
      const answer = await get(url);
      expect(answer['content-security-policy']).toBe(LOCKED.replace(";frame-ancestors 'none'", ''));
      expect(answer['x-frame-options']).toBeUndefined();
    }
  });

  it('Bull Board, an operator tool with page assets of its own, keeps its own policy', async () => {
    await stack.api.get(DashboardAuthService).createUser('operator@example.com', PASSWORD, product.id, { operator: true });
    const { cookie } = await signIn(stack, 'operator@example.com');
    const board = await stack.request({ method: 'GET', url: '/admin/queues', headers: { cookie } });
    expect(board.status).toBe(200);
    expect(board.headers['content-security-policy']).toBeUndefined();
  });
});
