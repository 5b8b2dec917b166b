import { EntryRecord } from '@app/shared';
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

  it('with Redis stopped a sign-up still succeeds, readyz says Redis is unavailable, and the mail arrives once Redis is back', async () => {
    await redis.down();
    const ready = await stack.request({ method: 'GET', url: '/readyz' });
    expect(ready.status).toBe(503);
    expect(ready.json()).toEqual({ status: 'unavailable', checks: { database: 'ok', redis: 'unavailable' } });

    await signUp(stack, pk, 'while-redis-down@example.com');
    // The API keeps answering: rate limits fall back to counting in memory.
    const listed = await stack.request({ method: 'GET', url: '/api/v1/entries', headers: { authorization: `Bearer ${secret}` } });
    expect(listed.status).toBe(200);
    expect(await stack.db.getRepository(EntryRecord).existsBy({ email: 'while-redis-down@example.com' })).toBe(true);
    expect(stack.mail.to('while-redis-down@example.com')).toHaveLength(0);

    await redis.up();
    await stack.mail.waitFor('while-redis-down@example.com', 1);
    await waitFor(async () => (await stack.request({ method: 'GET', url: '/readyz' })).status === 200, 'readyz to recover');
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
