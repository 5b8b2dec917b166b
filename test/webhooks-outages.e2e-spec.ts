import { Delivery, DeliveryAttempt } from '@app/shared';
import { WebhooksService } from '../apps/api/src/webhooks/webhooks.service';
import { bearer, signUp } from './support/flows';
import { AppProcess } from './support/processes';
import { Receiver } from './support/receiver';
import { ThrowawayRedis } from './support/throwaway-redis';
import { Stack } from './support/stack';
import { waitFor } from './support/wait';

describe('webhooks while Redis is down', () => {
  let redis: ThrowawayRedis;
  let stack: Stack;
  let receiver: Receiver;

  beforeAll(async () => {
    redis = await ThrowawayRedis.start();
    stack = await Stack.start({
      env: { REDIS_URL: redis.url, WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_RETRY_DELAYS: '200ms', WEBHOOK_TIMEOUT: '1s', RECONCILE_INTERVAL: '1s' },
    });
    receiver = await new Receiver().start();
  });
  afterAll(async () => {
    await redis.up();
    await stack.stop();
    await redis.down();
    await receiver.stop();
  });

  it('every event committed meanwhile is delivered meanwhile; a first attempt that failed is retried once Redis is back', async () => {
    const product = await stack.createProduct();
    await stack.api.get(WebhooksService).create({ productId: product.id, mode: 'test', url: receiver.url });
    receiver.answer = (index) => (index === 0 ? 500 : 200);
    await redis.down();
    for (const email of ['r1@example.com', 'r2@example.com', 'r3@example.com']) await signUp(stack, product.keys.test.publishable, email);
    const { id } = (await stack.db.query(`SELECT id FROM entries WHERE email = 'r1@example.com'`))[0];
    await stack.request({ method: 'DELETE', url: `/api/v1/entries/${id}`, headers: bearer(product.keys.test.secret) });
    const received = await receiver.waitFor(4, 20_000);
    expect(received.map((r) => r.headers['service-event']).sort()).toEqual(['entry.created', 'entry.created', 'entry.created', 'entry.deleted']);
    // Its retry's job could not be added: the reconciler adds it once Redis is back.
    await redis.up();
    await receiver.waitFor(5, 20_000);
    expect(receiver.received[4].headers['service-delivery']).toBe(receiver.received[0].headers['service-delivery']);
    await waitFor(async () => (await stack.db.getRepository(Delivery).countBy({ status: 'succeeded' })) === 4, 'every delivery to succeed');
  });
});

describe('when a webhooks process dies during a first attempt', () => {
  let stack: Stack;
  let receiver: Receiver;
  const processes: AppProcess[] = [];
  const env = { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_TIMEOUT: '1s', RECONCILE_INTERVAL: '1s' };

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api'], env });
    receiver = await new Receiver().start();
  });
  afterAll(async () => {
    for (const app of processes) await app.stop();
    await receiver.stop();
    await stack.stop();
  });

  it('the delivery, never logged, is made again by another process, with the same ids, and logged once', async () => {
    const product = await stack.createProduct();
    await stack.api.get(WebhooksService).create({ productId: product.id, mode: 'test', url: receiver.url, events: ['entry.created'] });
    receiver.answer = (index) => (index === 0 ? 'hang' : 200);
    processes.push(await AppProcess.start('webhooks', stack.config, { env }));
    await signUp(stack, product.keys.test.publishable, 'crash@example.com');
    await receiver.waitFor(1);
    await processes[0].kill();
    processes.push(await AppProcess.start('webhooks', stack.config, { env }));
    const [first, second] = await receiver.waitFor(2, 20_000);
    expect(JSON.parse(second.body).id).toBe(JSON.parse(first.body).id);
    expect(second.headers['service-delivery']).toBe(first.headers['service-delivery']);
    const deliveries = stack.db.getRepository(Delivery);
    await waitFor(async () => (await deliveries.findOneBy({ id: String(first.headers['service-delivery']) }))?.status === 'succeeded', 'the delivery to succeed');
    // The attempt the dead process made was never logged.
    const attempts = await stack.db.getRepository(DeliveryAttempt).findBy({ deliveryId: String(first.headers['service-delivery']) });
    expect(attempts.map((attempt) => [attempt.attempt, attempt.statusCode])).toEqual([[1, 200]]);
  });
});
