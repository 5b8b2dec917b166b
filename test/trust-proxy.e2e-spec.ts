import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { AppendingProxy } from './support/appending-proxy';
import { csrfIn, form } from './support/dashboard';
import { Product, Stack } from './support/stack';

/** What a client that makes up its own proxy chain sends: a new address each time, before a plausible one. */
const madeUp = (i: number) => `203.0.113.${i}, 198.51.100.7`;

describe.each([
  ['a hop count', '1'],
  ['the proxy’s address', '127.0.0.0/8'],
])('TRUST_PROXY as %s (%s), behind a proxy that appends to X-Forwarded-For', (_, trustProxy) => {
  let stack: Stack;
  let proxy: AppendingProxy;
  let product: Product;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api'], env: { TRUST_PROXY: trustProxy, RATE_LIMIT_SIGNUP: '5/1m' } });
    proxy = await AppendingProxy.start(await stack.url());
    product = await stack.createProduct();
    await stack.api.get(DashboardAuthService).createUser('ada@example.com', 'a long enough password', product.id);
  });
  afterAll(async () => {
    await proxy?.stop();
    await stack?.stop();
  });

  const signUp = (i: number, forwardedFor: string) =>
    fetch(`${proxy.url}/public/v1/signups`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor },
      body: JSON.stringify({ key: product.keys.test.publishable, email: `person-${trustProxy.length}-${i}@example.com` }),
    }).then((answer) => answer.status);

  it('a client’s own X-Forwarded-For does not widen the per-IP sign-up limit (RATE_LIMIT_SIGNUP)', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 15; i++) statuses.push(await signUp(i, madeUp(i)));
    expect(statuses).toEqual([...Array<number>(5).fill(202), ...Array<number>(10).fill(429)]);
  });

  it('a client’s own X-Forwarded-For does not widen the per-IP count of failed logins', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      const page = await fetch(`${proxy.url}/dashboard/login`, { headers: { 'x-forwarded-for': madeUp(i) } });
      const cookie = page.headers.getSetCookie().find((header) => header.startsWith('wl_login='))!.split(';')[0];
      const answer = await fetch(`${proxy.url}/dashboard/login`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': madeUp(i) },
        // A different address each time: only the count per IP can stop these.
        body: form({ email: `guess-${i}@example.com`, password: `wrong guess ${i}`, _csrf: csrfIn(await page.text()) }),
      });
      statuses.push(answer.status);
    }
    expect(statuses).toEqual([...Array<number>(10).fill(401), 429, 429]);
  });

  it('the address the trusted proxy appends is the client’s: two clients behind it have a budget each', async () => {
    const fromProxy = (client: string, i: number) =>
      stack.api
        .inject({
          method: 'POST',
          url: '/public/v1/signups',
          remoteAddress: '127.0.0.1',
          headers: { 'content-type': 'application/json', 'x-forwarded-for': client },
          payload: JSON.stringify({ key: product.keys.test.publishable, email: `behind-${trustProxy.length}-${client}-${i}@example.com` }),
        })
        .then((answer) => answer.statusCode);
    for (const client of ['192.0.2.10', '192.0.2.11']) {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push(await fromProxy(client, i));
      expect([client, statuses]).toEqual([client, [202, 202, 202, 202, 202, 429]]);
    }
  });
});

describe('TRUST_PROXY as a list of addresses', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api'], env: { TRUST_PROXY: '10.0.0.0/8', RATE_LIMIT_SIGNUP: '3/1m' } });
  });
  afterAll(() => stack.stop());

  it('ignores the X-Forwarded-For of a client that is not one of the trusted proxies', async () => {
    const product = await stack.createProduct();
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const answer = await stack.api.inject({
        method: 'POST',
        url: '/public/v1/signups',
        remoteAddress: '192.0.2.50',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': madeUp(i) },
        payload: JSON.stringify({ key: product.keys.test.publishable, email: `direct-${i}@example.com` }),
      });
      statuses.push(answer.statusCode);
    }
    expect(statuses).toEqual([202, 202, 202, 429, 429]);
  });
});
