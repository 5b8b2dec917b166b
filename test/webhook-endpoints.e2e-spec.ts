import { Delivery, DeliveryAttempt, EventRecord, newId, WebhookEndpoint } from '@app/shared';
import Stripe from 'stripe';
import { In } from 'typeorm';
import { MaintenanceService } from '../apps/api/src/maintenance/maintenance.service';
import { DeliveryLog } from '../apps/api/src/webhooks/delivery-log';
import { WebhooksService } from '../apps/api/src/webhooks/webhooks.service';
import { signUp } from './support/flows';
import { Receiver, verifyStandard } from './support/receiver';
import { Product, Stack } from './support/stack';
import { waitFor } from './support/wait';

const stripe = new Stripe('sk_test_unused');

describe('webhook endpoints: secrets, disabling, the delivery log, retry now', () => {
  let stack: Stack;
  let product: Product;
  let hooks: WebhooksService;
  let deliveryLog: DeliveryLog;
  let receiver: Receiver;

  beforeAll(async () => {
    // Retries an hour apart: a failed delivery waits, so that "retry now" has something to do.
    stack = await Stack.start({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_RETRY_DELAYS: '1h', RATE_LIMIT_SIGNUP: '1000/1m' } });
    product = await stack.createProduct();
    hooks = stack.api.get(WebhooksService);
    deliveryLog = stack.api.get(DeliveryLog);
    receiver = await new Receiver().start();
  });
  afterAll(async () => {
    await receiver.stop();
    await stack.stop();
  });

  it("Stripe's verifier accepts our deliveries; after a rotation both secrets sign for a day", async () => {
    const endpoint = await hooks.create({ productId: product.id, mode: 'test', url: receiver.url, events: ['entry.created'] });
    await signUp(stack, product.keys.test.publishable, 'stripe@example.com');
    const [first] = await receiver.waitFor(1);
    const event = stripe.webhooks.constructEvent(first.body, String(first.headers['service-signature']), endpoint.secret);
    expect(event).toMatchObject({ type: 'entry.created' });
    expect(() => stripe.webhooks.constructEvent(first.body, String(first.headers['service-signature']), 'whsec_other')).toThrow();

    const { secret } = await hooks.rotateSecret(endpoint.id);
    expect(secret).not.toBe(endpoint.secret);
    await signUp(stack, product.keys.test.publishable, 'rotated@example.com');
    const [, second] = await receiver.waitFor(2);
    const header = String(second.headers['service-signature']);
    expect(header.match(/v1=/g)).toHaveLength(2);
    expect(stripe.webhooks.constructEvent(second.body, header, secret)).toMatchObject({ type: 'entry.created' });
    expect(stripe.webhooks.constructEvent(second.body, header, endpoint.secret)).toMatchObject({ type: 'entry.created' });
    await hooks.setDisabled(endpoint.id, true);
  });

  it('the standardwebhooks verifier accepts a Standard endpoint’s deliveries; after a rotation both secrets sign until the overlap ends', async () => {
    const standard = await new Receiver().start();
    try {
      const other = await stack.createProduct({ name: 'Standard' });
      const endpoint = await hooks.create({ productId: other.id, mode: 'test', url: standard.url, events: ['entry.created'], signatureFormat: 'standard' });
      expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      await signUp(stack, other.keys.test.publishable, 'standard@example.com');
      const [first] = await standard.waitFor(1);
      expect(verifyStandard(first, endpoint.secret)).toMatchObject({ type: 'entry.created' });
      expect(String(first.headers['webhook-signature']).split(' ')).toHaveLength(1);

      const { secret } = await hooks.rotateSecret(endpoint.id);
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      await signUp(stack, other.keys.test.publishable, 'standard-rotated@example.com');
      const [, second] = await standard.waitFor(2);
      expect(String(second.headers['webhook-signature']).split(' ')).toHaveLength(2);
      expect(verifyStandard(second, secret)).toMatchObject({ data: { entry: { email: 'standard-rotated@example.com' } } });
      expect(verifyStandard(second, endpoint.secret)).toMatchObject({ data: { entry: { email: 'standard-rotated@example.com' } } });

      await stack.db.getRepository(WebhookEndpoint).update({ id: endpoint.id }, { previousSecretUntil: new Date(Date.now() - 1000) });
      await signUp(stack, other.keys.test.publishable, 'standard-after@example.com');
      const [, , third] = await standard.waitFor(3);
      expect(String(third.headers['webhook-signature']).split(' ')).toHaveLength(1);
      expect(verifyStandard(third, secret)).toMatchObject({ data: { entry: { email: 'standard-after@example.com' } } });
      expect(() => verifyStandard(third, endpoint.secret)).toThrow('No matching signature found');
    } finally {
      await standard.stop();
    }
  });

  it('a disabled endpoint gets no new deliveries; enabled again, it does', async () => {
    const before = receiver.received.length;
    const other = await new Receiver().start();
    try {
      await hooks.create({ productId: product.id, mode: 'test', url: other.url, events: ['entry.created'] });
      await signUp(stack, product.keys.test.publishable, 'while-disabled@example.com');
      await other.waitFor(1); // the event went out to the enabled endpoint…
      expect(receiver.received).toHaveLength(before); // …and not to the disabled one
      const [disabled] = await stack.db.query(`SELECT id FROM webhook_endpoints WHERE url = $1 AND disabled_at IS NOT NULL`, [receiver.url]);
      await hooks.setDisabled(disabled.id, false);
      await signUp(stack, product.keys.test.publishable, 'enabled-again@example.com');
      await receiver.waitFor(before + 1);
      expect(JSON.parse(receiver.received[before].body).data.entry.email).toBe('enabled-again@example.com');
    } finally {
      await other.stop();
    }
  });

  it('retry now sends a delivery that waits for its next attempt at once; the log shows every attempt', async () => {
    const failing = await new Receiver().start();
    failing.answer = (index) => (index === 0 ? 500 : 200);
    try {
      const endpoint = await hooks.create({ productId: product.id, mode: 'live', url: failing.url, events: ['entry.created'] });
      await signUp(stack, product.keys.live.publishable, 'retry-now@example.com');
      await failing.waitFor(1);
      const deliveries = stack.db.getRepository(Delivery);
      await waitFor(async () => (await deliveries.findOneBy({ endpointId: endpoint.id }))?.nextAttemptAt != null, 'the retry to be scheduled');
      const [waiting] = await deliveryLog.of(endpoint.id);
      expect(waiting).toMatchObject({ status: 'pending', eventType: 'entry.created', attempts: [{ attempt: 1, statusCode: 500, error: null }] });
      expect(waiting.nextAttemptAt!.getTime()).toBeGreaterThan(Date.now() + 3_500_000);

      await deliveryLog.retryNow(waiting.id);
      await failing.waitFor(2);
      await waitFor(async () => (await deliveries.findOneByOrFail({ id: waiting.id })).status === 'succeeded', 'success');
      const [done] = await deliveryLog.of(endpoint.id);
      expect(done.attempts.map((attempt) => attempt.statusCode)).toEqual([500, 200]);
      expect(done.attempts[1].durationMs).toBeGreaterThanOrEqual(0);
      // Delivered: the body is gone, and there is nothing to retry any more.
      expect((await stack.db.getRepository(EventRecord).findOneByOrFail({ id: done.eventId })).body).toBeNull();
      await expect(deliveryLog.retryNow(done.id)).rejects.toThrow(/not waiting/);
    } finally {
      await failing.stop();
    }
  });

  it('the log holds at most 100 deliveries per endpoint and nothing older than 30 days', async () => {
    const endpoint = await hooks.create({ productId: product.id, mode: 'test', url: receiver.url, events: ['entry.deleted'] });
    const now = Date.now();
    const rows = [];
    for (let i = 0; i < 130; i++) {
      const eventId = newId('evt');
      // 120 recent deliveries, one a minute, and 10 from 31 days ago.
      const createdAt = new Date(i < 120 ? now - i * 60_000 : now - 31 * 86_400_000 - i * 60_000);
      await stack.db.getRepository(EventRecord).insert({ id: eventId, productId: product.id, mode: 'test', type: 'entry.deleted', createdAt, body: null });
      rows.push({ id: newId('dlv'), endpointId: endpoint.id, eventId, eventType: 'entry.deleted', status: 'succeeded' as const, createdAt, finishedAt: createdAt });
    }
    await stack.db.getRepository(Delivery).insert(rows);
    await stack.db.getRepository(DeliveryAttempt).insert(rows.map((row) => ({ deliveryId: row.id, attempt: 1, attemptedAt: row.createdAt, statusCode: 200, durationMs: 3 })));

    const log = await deliveryLog.of(endpoint.id);
    expect(log).toHaveLength(100);
    expect(log.map((entry) => entry.id)).toEqual(rows.slice(0, 100).map((row) => row.id));
    expect(log[0].attempts).toEqual([{ attempt: 1, attemptedAt: rows[0].createdAt, statusCode: 200, error: null, durationMs: 3 }]);

    // An old event whose delivery is still trying stays, with its delivery.
    const trying = { id: newId('evt'), productId: product.id, mode: 'test' as const, type: 'entry.deleted', createdAt: new Date(now - 40 * 86_400_000), body: '{}' };
    await stack.db.getRepository(EventRecord).insert(trying);
    const pending = { id: newId('dlv'), endpointId: endpoint.id, eventId: trying.id, eventType: 'entry.deleted', status: 'pending' as const, createdAt: trying.createdAt };
    await stack.db.getRepository(Delivery).insert(pending);

    await stack.api.get(MaintenanceService).runOnce();
    const kept = await stack.db.getRepository(Delivery).findBy({ endpointId: endpoint.id });
    expect(kept.map((row) => row.id).sort()).toEqual([...rows.slice(0, 100).map((row) => row.id), pending.id].sort());
    // Events go with the log: those of the last 30 days and the one still being delivered stay.
    const events = await stack.db.getRepository(EventRecord).findBy({ id: In([...rows.map((row) => row.eventId), trying.id]) });
    expect(events.map((event) => event.id).sort()).toEqual([...rows.slice(0, 120).map((row) => row.eventId), trying.id].sort());
  });
});
