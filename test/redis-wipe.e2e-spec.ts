import { Delivery, EventRecord } from '@app/shared';
import { WebhooksService } from '../apps/api/src/webhooks/webhooks.service';
import { signUp } from './support/flows';
import { Receiver } from './support/receiver';
import { Stack } from './support/stack';
import { ThrowawayRedis } from './support/throwaway-redis';
import { waitFor } from './support/wait';

const SIGN_UPS = 60;

describe('when Redis restarts without its data', () => {
  let redis: ThrowawayRedis;
  let receiver: Receiver;
  let stack: Stack;

  beforeAll(async () => {
    redis = await ThrowawayRedis.start();
    receiver = await new Receiver().start();
    stack = await Stack.start({
      env: {
        REDIS_URL: redis.url,
        RECONCILE_INTERVAL: '1s',
        WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
        WEBHOOK_RETRY_DELAYS: '3s,3s,3s,3s,3s',
        RATE_LIMIT_SIGNUP: '1000/1m',
      },
    });
  });
  afterAll(async () => {
    await redis.up();
    await stack.stop();
    await redis.down();
    await receiver.stop();
  });

  it('every address gets exactly one confirmation mail and every pending delivery arrives, with its event id', async () => {
    const product = await stack.createProduct();
    await stack.api.get(WebhooksService).create({ productId: product.id, mode: 'test', url: receiver.url, events: ['entry.created'] });
    let healthy = false;
    receiver.answer = () => (healthy ? 200 : 500);
    // Mails wait at the SMTP server while the loss happens, some being sent, the rest waiting behind them.
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    stack.mail.beforeAccept = () => gate;

    const emails = Array.from({ length: SIGN_UPS }, (_, i) => `wiped-${i}@example.com`);
    for (const email of emails) await signUp(stack, product.keys.test.publishable, email);
    await waitFor(
      async () => (await stack.db.query(`SELECT count(*)::int AS n FROM outbox WHERE queue = 'mail' AND attempts > 0`))[0].n > 0,
      'the mailer to be sending confirmation mails, the others waiting in the outbox',
    );
    // Every delivery has failed once and waits in Redis for its retry.
    await waitFor(
      async () => (await stack.db.query(`SELECT count(DISTINCT delivery_id)::int AS n FROM delivery_attempts`))[0].n === SIGN_UPS,
      'a failed first attempt of every delivery',
      { timeoutMs: 20_000 },
    );

    await redis.shutdownNosave();
    await redis.up();
    healthy = true;
    open();

    await waitFor(() => emails.every((email) => stack.mail.to(email).length > 0), 'a confirmation mail to every address', { timeoutMs: 30_000 });
    const deliveries = stack.db.getRepository(Delivery);
    await waitFor(async () => (await deliveries.countBy({ status: 'succeeded' })) === SIGN_UPS, 'every delivery to succeed', { timeoutMs: 30_000 });
    await waitFor(async () => (await stack.db.query(`SELECT count(*)::int AS n FROM outbox`))[0].n === 0, 'the outbox to empty');
    expect(emails.filter((email) => stack.mail.to(email).length !== 1)).toEqual([]);

    const created = await stack.db.getRepository(EventRecord).findBy({ type: 'entry.created' });
    const delivered = new Set(receiver.received.filter((request) => request.answer === 200).map((request) => JSON.parse(request.body).id as string));
    expect([...delivered].sort()).toEqual(created.map((event) => event.id).sort());
    // Every attempt of an event, before and after the loss, is the same delivery.
    const deliveryIds = new Map<string, Set<string>>();
    for (const request of receiver.received) {
      const eventId = JSON.parse(request.body).id as string;
      deliveryIds.set(eventId, (deliveryIds.get(eventId) ?? new Set()).add(String(request.headers['service-delivery'])));
    }
    expect([...deliveryIds.values()].filter((ids) => ids.size !== 1)).toEqual([]);
  }, 120_000);
});
