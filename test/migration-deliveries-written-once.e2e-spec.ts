import { eventEnvelope, EventRecord, newId } from '@app/shared';
import { DeliveriesWrittenOnce1764108000000 } from '../libs/shared/src/database/migrations/1764108000000-deliveries-written-once';
import { DeliveryLog } from '../apps/api/src/webhooks/delivery-log';
import { WebhooksService } from '../apps/api/src/webhooks/webhooks.service';
import { Receiver } from './support/receiver';
import { Stack } from './support/stack';
import { waitFor } from './support/wait';

describe(DeliveriesWrittenOnce1764108000000.name, () => {
  let stack: Stack;
  let receiver: Receiver;
  const migration = new DeliveriesWrittenOnce1764108000000();

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api'], env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
    receiver = await new Receiver().start();
  });
  afterAll(async () => {
    await receiver.stop();
    await stack.stop();
  });

  async function migrate(direction: 'up' | 'down'): Promise<void> {
    const runner = stack.db.createQueryRunner();
    try {
      await migration[direction](runner);
    } finally {
      await runner.release();
    }
  }

  /** The attempt log as the delivery log reads it, a table before the migration and a view after. */
  const attempts = () =>
    stack.db.query(`SELECT delivery_id, attempt, attempted_at, status_code, error, duration_ms FROM delivery_attempts ORDER BY delivery_id, attempt`);

  it('the attempt log reads the same before, after and back; an older version’s writes keep working; the new fan-out sends an older api’s events', async () => {
    const product = await stack.createProduct();
    const endpoint = await stack.api.get(WebhooksService).create({ productId: product.id, mode: 'test', url: receiver.url, events: ['entry.created'] });
    await migrate('down');

    // Deliveries of every shape, as the previous version wrote them.
    const now = Date.now();
    const at = (seconds: number) => new Date(now - 60_000 + seconds * 1000);
    const shapes = { waiting: 0, retrying: 2, succeeded: 1, givenUp: 6 };
    const ids: Record<keyof typeof shapes, string> = { waiting: '', retrying: '', succeeded: '', givenUp: '' };
    for (const [shape, made] of Object.entries(shapes) as [keyof typeof shapes, number][]) {
      const eventId = newId('evt');
      const id = (ids[shape] = newId('dlv'));
      const status = shape === 'succeeded' ? 'succeeded' : shape === 'givenUp' ? 'failed' : 'pending';
      await stack.db.query(`INSERT INTO events (id, product_id, mode, type, created_at, body) VALUES ($1, $2, 'test', 'entry.created', now(), $3)`, [
        eventId,
        product.id,
        status === 'pending' ? '{"id":"kept"}' : null,
      ]);
      await stack.db.query(
        `INSERT INTO deliveries (id, endpoint_id, event_id, event_type, status, created_at, next_attempt_at, finished_at)
         VALUES ($1, $2, $3, 'entry.created', $4, now(), $5, $6)`,
        [id, endpoint.id, eventId, status, shape === 'retrying' ? new Date(now + 3_600_000) : null, status === 'pending' ? null : new Date(now)],
      );
      for (let attempt = made; attempt >= 1; attempt--) {
        await stack.db.query(`INSERT INTO delivery_attempts VALUES ($1, $2, $3, $4, $5, $6)`, [
          id,
          attempt,
          at(attempt),
          attempt === made && status === 'succeeded' ? 200 : attempt === 2 ? null : 500,
          attempt === 2 ? 'ECONNRESET' : null,
          attempt * 10,
        ]);
      }
    }
    // An event an older api wrote, its body in events, its outbox row not yet claimed.
    const entry = { id: newId('ent'), email: 'older@example.com', state: 'pending', createdAt: new Date(now).toISOString(), confirmedAt: null, invitedAt: null, redeemedAt: null, referralCode: null, referrals: 0 } as const;
    const envelope = eventEnvelope('entry.created', { productId: product.id, mode: 'test' }, entry, new Date(now));
    const [legacy, legacyBody] = [envelope.id, JSON.stringify(envelope)];
    await stack.db.query(`INSERT INTO events (id, product_id, mode, type, created_at, body) VALUES ($1, $2, 'test', 'entry.created', now(), $3)`, [legacy, product.id, legacyBody]);
    await stack.db.query(`INSERT INTO outbox (queue, name, data, created_at) VALUES ('webhooks', 'fan-out', $1, now())`, [{ eventId: legacy }]);
    const before = await attempts();
    expect(before).toHaveLength(9);

    await migrate('up');
    expect(await attempts()).toEqual(before);
    const logged = await stack.api.get(DeliveryLog).of(endpoint.id);
    expect(logged.find((delivery) => delivery.id === ids.givenUp)!.attempts.map((attempt) => attempt.attempt)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(logged.find((delivery) => delivery.id === ids.waiting)!.attempts).toEqual([]);

    // An older webhooks process logs an attempt into the view.
    await stack.db.query(`INSERT INTO delivery_attempts (delivery_id, attempt, attempted_at, status_code, error, duration_ms) VALUES ($1, 3, $2, 500, NULL, 30)`, [
      ids.retrying,
      at(3),
    ]);
    const withOlder = await attempts();
    expect(withOlder).toHaveLength(10);

    // The new fan-out sends the older api's event with the body it wrote, and leaves no body behind.
    await stack.startApp('webhooks');
    const [sent] = await receiver.waitFor(1);
    expect(sent.body).toBe(legacyBody);
    await waitFor(async () => (await stack.db.query(`SELECT 1 FROM outbox WHERE queue = 'webhooks'`)).length === 0, 'the outbox row to go');
    expect((await stack.db.getRepository(EventRecord).findOneByOrFail({ id: legacy })).body).toBeNull();
    const sentId = String(sent.headers['service-delivery']);
    expect((await attempts()).filter((row: { delivery_id: string }) => row.delivery_id === sentId).map((row: { attempt: number; status_code: number }) => [row.attempt, row.status_code])).toEqual([[1, 200]]);
    await stack.stopApp('webhooks');

    // Down: the inline first attempt back in the table; a body waiting in an outbox row back in its event.
    const { eventId: waiting } = await stack.api.get(WebhooksService).sendTest(endpoint.id);
    const afterUp = await attempts();
    await migrate('down');
    expect(await attempts()).toEqual(afterUp);
    expect(await stack.db.query(`SELECT table_type FROM information_schema.tables WHERE table_name = 'delivery_attempts'`)).toEqual([{ table_type: 'BASE TABLE' }]);
    expect(JSON.parse((await stack.db.getRepository(EventRecord).findOneByOrFail({ id: waiting })).body!).id).toBe(waiting);

    await migrate('up');
    expect(await attempts()).toEqual(afterUp);
  });
});
