import { bearer, joinLine } from './support/flows';
import { Stack } from './support/stack';

describe('API rate limits', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api', 'mailer'], env: { RATE_LIMIT_API: '5/1m' } });
  });
  afterAll(() => stack.stop());

  it('each secret key gets RATE_LIMIT_API requests per window, then 429 rate_limited with Retry-After; move-up is not limited', async () => {
    const product = await stack.createProduct();
    const entry = await joinLine(stack, product.keys.test.publishable, 'limited@example.com');
    const list = (secret: string) => stack.request({ method: 'GET', url: '/api/v1/entries', headers: bearer(secret) });
    for (let i = 0; i < 5; i++) expect((await list(product.keys.test.secret)).status).toBe(200);
    const limited = await list(product.keys.test.secret);
    expect(limited.status).toBe(429);
    expect(limited.json().error.code).toBe('rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(limited.headers['retry-after']).toMatch(/^\d+$/);
    // Another key has its own budget.
    expect((await list(product.keys.live.secret)).status).toBe(200);
    const moved = await stack.request({
      method: 'POST',
      url: `/api/v1/entries/${entry.id}/move-up`,
      headers: bearer(product.keys.test.secret),
      body: { places: 1 },
    });
    expect(moved.status).toBe(200);
    // An unknown key is 401, not 429: authentication comes first.
    expect((await list('sk_test_unknown')).status).toBe(401);
  });
});
