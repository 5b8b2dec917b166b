import { Delivery, EntryRecord, EventRecord } from '@app/shared';
import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { WebhooksService } from '../apps/api/src/webhooks/webhooks.service';
import { form, PASSWORD, signIn } from './support/dashboard';
import { signUp } from './support/flows';
import { Stack } from './support/stack';
import { ThrowawayRedis } from './support/throwaway-redis';
import { waitFor } from './support/wait';

describe('when Redis or the mailer is down at sign-up time', () => {
  let redis: ThrowawayRedis;
  let stack: Stack;
  let pk: string;
  let secret: string;

  beforeAll(async () => {
    redis = await ThrowawayRedis.start();
    stack = await Stack.start({ apps: ['api', 'mailer'], env: { REDIS_URL: redis.url } });
    const product = await stack.createProduct();
    pk = product.keys.test.publishable;
    secret = product.keys.test.secret;
  });
  afterAll(async () => {
    await redis.up();
    await stack.stop();
    await redis.down();
  });

  it('with Redis stopped a sign-up still succeeds and its mail still goes out, and readyz says Redis is unavailable until it is back', async () => {
    await redis.down();
    const ready = await stack.request({ method: 'GET', url: '/readyz' });
    expect(ready.status).toBe(503);
    expect(ready.json()).toEqual({ status: 'unavailable', checks: { database: 'ok', redis: 'unavailable' } });

    await signUp(stack, pk, 'while-redis-down@example.com');
    // The API keeps answering: rate limits fall back to counting in memory.
    const listed = await stack.request({ method: 'GET', url: '/api/v1/entries', headers: { authorization: `Bearer ${secret}` } });
    expect(listed.status).toBe(200);
    expect(await stack.db.getRepository(EntryRecord).existsBy({ email: 'while-redis-down@example.com' })).toBe(true);
    // Confirmation mails go from PostgreSQL to SMTP: Redis is not on their way.
    await stack.mail.waitFor('while-redis-down@example.com');

    await redis.up();
    await waitFor(async () => (await stack.request({ method: 'GET', url: '/readyz' })).status === 200, 'readyz to recover');
    expect(stack.mail.to('while-redis-down@example.com')).toHaveLength(1);
  });

  it('with the mailer stopped a sign-up waits in the outbox, and the mail goes out when a mailer starts', async () => {
    await stack.stopApp('mailer');
    await signUp(stack, pk, 'while-mailer-down@example.com');
    const [{ count }] = await stack.db.query(`SELECT count(*)::int AS count FROM outbox WHERE queue = 'mail'`);
    expect(count).toBe(1);
    await stack.startApp('mailer');
    await stack.mail.waitFor('while-mailer-down@example.com', 1);
    expect(stack.mail.to('while-mailer-down@example.com')).toHaveLength(1);
  });
});

describe('when Redis is down and the team presses "retry now"', () => {
  let redis: ThrowawayRedis;
  let stack: Stack;

  beforeAll(async () => {
    redis = await ThrowawayRedis.start();
    stack = await Stack.start({ apps: ['api'], env: { REDIS_URL: redis.url, WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
  });
  afterAll(async () => {
    await redis.up();
    await stack.stop();
    await redis.down();
  });

  it('the dashboard answers 503 in words within seconds instead of waiting for Redis', async () => {
    const product = await stack.createProduct();
    await stack.api.get(DashboardAuthService).createUser('ada@example.com', PASSWORD, product.id);
    const endpoint = await stack.api.get(WebhooksService).create({ productId: product.id, mode: 'live', url: 'http://127.0.0.1:9/hook' });
    // A delivery waiting for its next attempt, as the webhooks app leaves one after a failed attempt.
    const now = new Date();
    await stack.db.getRepository(EventRecord).insert({ id: 'evt_waiting', productId: product.id, mode: 'live', type: 'entry.deleted', createdAt: now, body: '{}' });
    await stack.db.getRepository(Delivery).insert({
      id: 'dlv_waiting',
      endpointId: endpoint.id,
      eventId: 'evt_waiting',
      eventType: 'entry.deleted',
      status: 'pending',
      createdAt: now,
      nextAttemptAt: new Date(now.getTime() + 60_000),
    });
    const { cookie, csrf } = await signIn(stack, 'ada@example.com');

    await redis.down();
    const retried = await stack.request({
      method: 'POST',
      url: `/dashboard/${product.id}/live/webhooks/${endpoint.id}/deliveries/dlv_waiting/retry`,
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: form({ _csrf: csrf }),
    });
    expect(retried.status).toBe(503);
    expect(retried.text).toContain('The queue cannot be reached right now');
    expect(await stack.db.getRepository(Delivery).findOneByOrFail({ id: 'dlv_waiting' })).toMatchObject({ status: 'pending' });
  });
});

describe('when the apps stop just after Redis came back', () => {
  it('each of them stops and leaves no connection behind', async () => {
    const redis = await ThrowawayRedis.start();
    const stack = await Stack.start({ apps: ['api', 'mailer', 'webhooks'], env: { REDIS_URL: redis.url } });
    try {
      await redis.down();
      await waitFor(async () => (await stack.request({ method: 'GET', url: '/readyz' })).status === 503, 'readyz to see Redis gone');
      // Every BullMQ connection now waits to reconnect; closing one in that state used to wait for ever.
      await redis.up();
      const started = Date.now();
      await stack.stop();
      // A worker's blocking wait queued for the reconnect was never failed when its connection was ended,
      // so its close waited for BullMQ's watchdog to give up on it (over 5 s); otherwise the three apps
      // close in well under a second.
      expect(Date.now() - started).toBeLessThan(4000);
      expect(await redis.clients()).toBe(0);
    } finally {
      await redis.down();
    }
  });
});
