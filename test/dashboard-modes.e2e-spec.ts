import { ApiKey, WebhookEndpoint } from '@app/shared';
import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { WebhooksService } from '../apps/api/src/webhooks/webhooks.service';
import { form, PASSWORD, signIn } from './support/dashboard';
import { Product, Stack } from './support/stack';

describe("the dashboard's live and test pages", () => {
  let stack: Stack;
  let product: Product;
  let session: { cookie: string; csrf: string };

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api'], env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
    product = await stack.createProduct();
    await stack.api.get(DashboardAuthService).createUser('modes@example.com', PASSWORD, product.id);
    session = await signIn(stack, 'modes@example.com');
  });
  afterAll(() => stack.stop());

  const post = (url: string) =>
    stack.request({
      method: 'POST',
      url,
      headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: form({ _csrf: session.csrf }),
    });

  it("a live page cannot see or change a test endpoint or a test key of the same product: 404, nothing changed", async () => {
    const endpoint = await stack.api.get(WebhooksService).create({ productId: product.id, mode: 'test', url: 'http://127.0.0.1:9/hook' });
    const testKey = await stack.db.getRepository(ApiKey).findOneByOrFail({ productId: product.id, mode: 'test', kind: 'secret' });
    const live = `/dashboard/${product.id}/live`;

    const answers = [
      (await stack.request({ method: 'GET', url: `${live}/webhooks/${endpoint.id}`, headers: { cookie: session.cookie } })).status,
      ...(await Promise.all(['disable', 'rotate', 'test', 'delete'].map(async (action) => (await post(`${live}/webhooks/${endpoint.id}/${action}`)).status))),
      (await post(`${live}/keys/${testKey.id}/revoke`)).status,
    ];
    expect(answers).toEqual(Array(6).fill(404));
    expect(await stack.db.getRepository(WebhookEndpoint).findOneByOrFail({ id: endpoint.id })).toMatchObject({ disabledAt: null, previousSecret: null });
    expect(await stack.db.getRepository(ApiKey).findOneByOrFail({ id: testKey.id })).toMatchObject({ revokedAt: null });

    // Its own mode's pages still act.
    expect((await post(`/dashboard/${product.id}/test/webhooks/${endpoint.id}/disable`)).status).toBe(303);
    expect((await post(`/dashboard/${product.id}/test/keys/${testKey.id}/revoke`)).status).toBe(303);
  });
});
