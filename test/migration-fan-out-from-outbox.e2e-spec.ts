import { QueueName } from '@app/shared';
import { FanOutFromOutbox1763877600000 } from '../libs/shared/src/database/migrations/1763877600000-fan-out-from-outbox';
import { WebhooksService } from '../apps/api/src/webhooks/webhooks.service';
import { Receiver } from './support/receiver';
import { Stack } from './support/stack';

describe(FanOutFromOutbox1763877600000.name, () => {
  let stack: Stack;
  let receiver: Receiver;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api'], env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
    receiver = await new Receiver().start();
  });
  afterAll(async () => {
    await receiver.stop();
    await stack.stop();
  });

  it('hands back the fan-outs an older relay had published (their jobs now run nowhere), so they are delivered', async () => {
    const product = await stack.createProduct();
    await stack.api.get(WebhooksService).create({ productId: product.id, mode: 'test', url: receiver.url });
    const { eventId } = await stack.api.get(WebhooksService).sendTest((await stack.api.get(WebhooksService).list(product.id, 'test'))[0].id);
    // As an older relay left it: published, its job in Redis for a worker that no longer exists.
    await stack.db.query(`UPDATE outbox SET published_at = now() - interval '1 hour', leased_until = NULL WHERE queue = $1`, [QueueName.Webhooks]);
    await stack.db.query(`INSERT INTO outbox (queue, name, data, created_at) VALUES ('mail', 'confirmation', '{"entryId": "ent_x"}', now())`);
    await stack.db.query(`UPDATE outbox SET published_at = now() WHERE queue = 'mail'`);

    const runner = stack.db.createQueryRunner();
    try {
      await new FanOutFromOutbox1763877600000().up(runner);
    } finally {
      await runner.release();
    }
    expect(await stack.db.query(`SELECT queue, published_at IS NULL AS unpublished FROM outbox ORDER BY queue`)).toEqual([
      { queue: 'mail', unpublished: false },
      { queue: 'webhooks', unpublished: true },
    ]);
    await stack.startApp('webhooks');
    const [delivery] = await receiver.waitFor(1);
    expect(JSON.parse(delivery.body).id).toBe(eventId);
  });
});
