import { Metrics, openCommandConnection } from '@app/shared';
import type Redis from 'ioredis';
import { RateLimits } from '../apps/api/src/common/rate-limits';
import { bearer, joinLine } from './support/flows';
import { Stack } from './support/stack';
import { waitFor } from './support/wait';

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

  it.each([
    ['5 per 10 s', 5, 10_000, 30],
    ['1,000 per minute', 1000, 60_000, 100],
  ])('%s: two replicas together pass exactly the limit of three times as many requests, with few Redis commands', async (_, points, durationMs, commands) => {
    const config = { ...stack.config, RATE_LIMIT_API: { points, durationMs }, QUEUE_PREFIX: `${stack.config.QUEUE_PREFIX}-replicas-${points}` };
    const clients = [openCommandConnection(config) as Redis, openCommandConnection(config) as Redis];
    try {
      await waitFor(() => clients.every((client) => client.status === 'ready'), 'Redis connections');
      const sent = clients.map((client) => jest.spyOn(client, 'sendCommand'));
      const replicas = clients.map((client) => new RateLimits(client, config, new Metrics(config)));
      const answers = await Promise.all(
        Array.from({ length: points * 3 }, (_, i) => replicas[i % 2].apiRequestWith('key_shared').then(() => 'passed', (error: { code: string }) => error.code)),
      );
      expect(answers.filter((answer) => answer === 'passed')).toHaveLength(points);
      expect(answers.filter((answer) => answer !== 'passed').every((answer) => answer === 'rate_limited')).toBe(true);
      expect(sent[0].mock.calls.length + sent[1].mock.calls.length).toBeLessThanOrEqual(commands);
    } finally {
      for (const client of clients) client.disconnect();
    }
  });
});

describe('the script-tag form status rate limit', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api'], env: { RATE_LIMIT_SIGNUP_STATUS: '3/1m' } });
  });
  afterAll(() => stack.stop());

  it('each client IP gets RATE_LIMIT_SIGNUP_STATUS questions per window, then 429 with a Retry-After the script may read', async () => {
    const product = await stack.createProduct();
    const ask = (remoteAddress: string) =>
      stack.request({ method: 'POST', url: '/public/v1/signups/status', remoteAddress, body: { key: product.keys.test.publishable, watch: 'q3V9w2xZr8mN4bK7tY1pLc' } });
    for (let i = 0; i < 3; i++) expect((await ask('203.0.113.5')).status).toBe(200);
    const limited = await ask('203.0.113.5');
    expect([limited.status, limited.json().error.code]).toEqual([429, 'rate_limited']);
    expect(limited.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    expect(limited.headers).toMatchObject({ 'access-control-allow-origin': '*', 'access-control-expose-headers': 'retry-after' });
    // Another address has its own budget.
    expect((await ask('203.0.113.6')).status).toBe(200);
  });

  it('counts an IPv6 /64 as one client, whichever of its addresses asks; another /64 has its own budget', async () => {
    const product = await stack.createProduct();
    const ask = (remoteAddress: string) =>
      stack.request({ method: 'POST', url: '/public/v1/signups/status', remoteAddress, body: { key: product.keys.test.publishable, watch: 'q3V9w2xZr8mN4bK7tY1pLc' } });
    const statuses = [];
    for (const address of ['2001:db8:5:6::1', '2001:db8:5:6::2', '2001:db8:5:6:ffff::3', '2001:db8:5:6::4', '2001:db8:5:7::1']) statuses.push((await ask(address)).status);
    expect(statuses).toEqual([200, 200, 200, 429, 200]);
  });
});
