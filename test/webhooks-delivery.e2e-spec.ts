import { Delivery, DeliveryAttempt, EntryRecord, EventRecord, newSigningSecret, QueueName, redisOptions, WebhookEndpoint } from '@app/shared';
import { Queue } from 'bullmq';
import { WebhooksService } from '../apps/api/src/webhooks/webhooks.service';
import { bearer, joinLine, signUp } from './support/flows';
import { api, codeIn, invitationsTo } from './support/invitations';
import { Answer, Receiver, verify, verifyStandard } from './support/receiver';
import { linkIn } from './support/smtp-sink';
import { Product, Stack } from './support/stack';
import { waitFor } from './support/wait';

describe('webhooks', () => {
  let stack: Stack;
  let product: Product;
  let hooks: WebhooksService;

  beforeAll(async () => {
    stack = await Stack.start({
      env: {
        WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
        WEBHOOK_RETRY_DELAYS: '200ms,400ms,600ms,800ms,1s',
        WEBHOOK_TIMEOUT: '500ms',
        RATE_LIMIT_SIGNUP: '1000/1m',
      },
    });
    product = await stack.createProduct();
    hooks = stack.api.get(WebhooksService);
  });
  afterAll(() => stack.stop());

  it('every entry event reaches each matching endpoint once, signed, with its headers; modes and types filter', async () => {
    const all = await new Receiver().start();
    const invitedOnly = await new Receiver().start();
    const live = await new Receiver().start();
    try {
      const allHook = await hooks.create({ productId: product.id, mode: 'test', url: `${all.url}/hook` });
      await hooks.create({ productId: product.id, mode: 'test', url: invitedOnly.url, events: ['entry.invited'] });
      await hooks.create({ productId: product.id, mode: 'live', url: live.url });
      const pk = product.keys.test.publishable;
      const client = api(stack, product.keys.test.secret);

      const redeemer = await joinLine(stack, pk, 'hooked@example.com');
      await client.invite(redeemer.id);
      await client.redeem(codeIn(invitationsTo(stack, 'hooked@example.com')[0]));
      const deleted = await joinLine(stack, pk, 'deleted@example.com');
      await stack.request({ method: 'DELETE', url: `/api/v1/entries/${deleted.id}`, headers: bearer(product.keys.test.secret) });
      await signUp(stack, pk, 'leaver@example.com');
      const unsubscribe = new URL(linkIn(await stack.mail.waitFor('leaver@example.com'), `${stack.config.PUBLIC_BASE_URL}/unsubscribe/`)).pathname;
      await stack.request({ method: 'POST', url: unsubscribe });

      const types = ['entry.created', 'entry.confirmed', 'entry.invited', 'entry.redeemed', 'entry.created', 'entry.confirmed', 'entry.deleted', 'entry.created', 'entry.unsubscribed'];
      const received = await all.waitFor(types.length);
      await invitedOnly.waitFor(1);
      expect(received.map((r) => r.headers['service-event']).sort()).toEqual([...types].sort());
      for (const delivery of received) {
        const envelope = JSON.parse(delivery.body);
        expect(delivery.headers['service-event']).toBe(envelope.type);
        expect(delivery.headers['service-delivery']).toMatch(/^dlv_/);
        expect(delivery.headers['content-type']).toBe('application/json');
        expect(verify(String(delivery.headers['service-signature']), delivery.body, allHook.secret)).toBe(true);
        expect(verify(String(delivery.headers['service-signature']), delivery.body, 'whsec_wrong')).toBe(false);
        expect(envelope).toMatchObject({ id: expect.stringMatching(/^evt_/), mode: 'test', productId: product.id, data: { entry: expect.any(Object) } });
        expect(delivery.body).not.toMatch(/invite=|whsec_|sk_/);
      }
      expect(new Set(received.map((r) => JSON.parse(r.body).id)).size).toBe(types.length);
      expect(invitedOnly.received.map((r) => r.headers['service-event'])).toEqual(['entry.invited']);
      expect(live.received).toEqual([]);
      // Delivered events keep no body: not in their outbox rows, which are gone, nor in events.
      await waitFor(
        async () => (await stack.db.query(`SELECT 1 FROM events WHERE body IS NOT NULL AND type LIKE 'entry.%' UNION ALL SELECT 1 FROM outbox WHERE queue = 'webhooks'`)).length === 0,
        'bodies to go',
      );
    } finally {
      await Promise.all([all.stop(), invitedOnly.stop(), live.stop()]);
    }
  });

  it('500, a timeout, a 302 and then 200: four attempts with the same ids, fresh signatures, on the schedule', async () => {
    const receiver = await new Receiver().start();
    const answers: ('hang' | number)[] = [500, 'hang', 302, 200];
    receiver.answer = (index) => answers[index] ?? 200;
    try {
      const endpoint = await hooks.create({ productId: product.id, mode: 'live', url: receiver.url, events: ['entry.created'] });
      await signUp(stack, product.keys.live.publishable, 'retry@example.com');
      const received = await receiver.waitFor(4);
      expect(new Set(received.map((r) => JSON.parse(r.body).id)).size).toBe(1);
      expect(new Set(received.map((r) => r.headers['service-delivery'])).size).toBe(1);
      // A fresh signature per attempt: signed at the attempt's own time, and valid.
      const endpointSecret = endpoint.secret;
      for (const r of received) {
        const t = Number(String(r.headers['service-signature']).split(',')[0].slice(2));
        expect(Math.abs(t - r.at / 1000)).toBeLessThan(2);
        expect(verify(String(r.headers['service-signature']), r.body, endpointSecret)).toBe(true);
      }
      expect(new Set(received.map((r) => String(r.headers['service-signature']).split(',')[0])).size).toBeGreaterThan(1);
      // Each retry waits its delay counted from the end of the failed attempt (the timeout counts in).
      const gaps = received.slice(1).map((r, i) => r.at - received[i].at);
      expect(gaps[0]).toBeGreaterThanOrEqual(200);
      expect(gaps[1]).toBeGreaterThanOrEqual(400 + 500);
      expect(gaps[2]).toBeGreaterThanOrEqual(600);
      const [delivery] = await stack.db.getRepository(Delivery).findBy({ endpointId: endpoint.id });
      await waitFor(async () => (await stack.db.getRepository(Delivery).findOneByOrFail({ id: delivery.id })).status === 'succeeded', 'success');
      const attempts = await stack.db.getRepository(DeliveryAttempt).find({ where: { deliveryId: delivery.id }, order: { attempt: 'ASC' } });
      expect(attempts.map((a) => [a.statusCode, a.error === null])).toEqual([[500, true], [null, false], [302, true], [200, true]]);
      expect(attempts[1].error).toContain('no answer');
    } finally {
      await receiver.stop();
    }
  });

  it('a Standard Webhooks endpoint: the standardwebhooks verifier accepts every attempt; a retry keeps webhook-id and is signed afresh', async () => {
    const receiver = await new Receiver().start();
    const answers: Answer[] = [500, 'hang', 200];
    receiver.answer = (index) => answers[index] ?? 200;
    try {
      const standard = await stack.createProduct({ name: 'Standard' });
      const endpoint = await hooks.create({ productId: standard.id, mode: 'test', url: receiver.url, events: ['entry.created'], signatureFormat: 'standard' });
      await signUp(stack, standard.keys.test.publishable, 'standard@example.com');
      const received = await receiver.waitFor(3);
      const [delivery] = await stack.db.getRepository(Delivery).findBy({ endpointId: endpoint.id });
      for (const attempt of received) {
        expect(verifyStandard(attempt, endpoint.secret)).toMatchObject({ id: delivery.eventId, type: 'entry.created' });
        expect(() => verifyStandard(attempt, newSigningSecret('standard'))).toThrow('No matching signature found');
        expect(attempt.headers).toMatchObject({
          'webhook-id': delivery.eventId,
          'service-event': 'entry.created',
          'service-delivery': delivery.id,
          'content-type': 'application/json',
        });
        expect(attempt.headers['service-signature']).toBeUndefined();
        expect(Math.abs(Number(attempt.headers['webhook-timestamp']) - attempt.at / 1000)).toBeLessThan(2);
      }
      // The third attempt came more than a second after the first (200 ms, a 500 ms timeout, 400 ms): a later timestamp, another signature.
      expect(received[2].headers['webhook-timestamp']).not.toBe(received[0].headers['webhook-timestamp']);
      expect(received[2].headers['webhook-signature']).not.toBe(received[0].headers['webhook-signature']);
    } finally {
      await receiver.stop();
    }
  });

  it('an endpoint that never answers 2xx gets exactly 1 + 5 attempts, the retries through the queue, then the delivery is given up and the body deleted', async () => {
    const receiver = await new Receiver().start();
    receiver.answer = () => 503;
    try {
      const endpoint = await hooks.create({ productId: product.id, mode: 'live', url: receiver.url, events: ['entry.confirmed'] });
      await joinLine(stack, product.keys.live.publishable, 'never@example.com');
      await receiver.waitFor(6);
      const deliveries = stack.db.getRepository(Delivery);
      await waitFor(async () => (await deliveries.findOneByOrFail({ endpointId: endpoint.id })).status === 'failed', 'giving up');
      const [delivery] = await deliveries.findBy({ endpointId: endpoint.id });
      expect(await stack.db.getRepository(DeliveryAttempt).countBy({ deliveryId: delivery.id })).toBe(6);
      await waitFor(async () => (await stack.db.getRepository(EventRecord).findOneByOrFail({ id: delivery.eventId })).body === null, 'the body to go');
      // The fan-out made the first attempt; the job the five retries and has failed for good: no seventh attempt is scheduled.
      const queue = new Queue(QueueName.Deliveries, { connection: redisOptions(stack.config.REDIS_URL), prefix: stack.config.QUEUE_PREFIX });
      try {
        await waitFor(async () => (await queue.getJob(delivery.id))?.finishedOn !== undefined, 'the job to end');
        const job = await queue.getJob(delivery.id);
        expect([await job?.getState(), job?.attemptsMade]).toEqual(['failed', 5]);
      } finally {
        await queue.close();
      }
      expect(receiver.received).toHaveLength(6);
    } finally {
      await receiver.stop();
    }
  });

  it('webhook.test goes to one endpoint whatever types it chose, with a made-up entry in its mode', async () => {
    const receiver = await new Receiver().start();
    try {
      const endpoint = await hooks.create({ productId: product.id, mode: 'live', url: receiver.url, events: ['entry.deleted'] });
      await hooks.sendTest(endpoint.id);
      const [delivery] = await receiver.waitFor(1);
      const envelope = JSON.parse(delivery.body);
      expect(envelope).toMatchObject({ type: 'webhook.test', mode: 'live', productId: product.id, data: { entry: { email: 'test@example.com' } } });
      expect(delivery.headers['service-event']).toBe('webhook.test');
      expect(verify(String(delivery.headers['service-signature']), delivery.body, endpoint.secret)).toBe(true);
      expect(await stack.db.getRepository(EntryRecord).existsBy({ id: envelope.data.entry.id })).toBe(false);
    } finally {
      await receiver.stop();
    }
  });

  it('a slow endpoint holds back no other: the fast one has everything before the slow one times out', async () => {
    const slow = await new Receiver().start();
    const fast = await new Receiver().start();
    slow.answer = () => 'hang';
    try {
      const other = await stack.createProduct({ name: 'Slow and fast' });
      const slowHook = await hooks.create({ productId: other.id, mode: 'test', url: slow.url, events: ['entry.created'] });
      await hooks.create({ productId: other.id, mode: 'test', url: fast.url, events: ['entry.created'] });
      for (let i = 0; i < 5; i++) await signUp(stack, other.keys.test.publishable, `speed-${i}@example.com`);
      await fast.waitFor(5);
      const slowAttempts = await stack.db.query(
        `SELECT count(*)::int AS count FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id WHERE d.endpoint_id = $1`,
        [slowHook.id],
      );
      expect(slowAttempts[0].count).toBe(0);
    } finally {
      await Promise.all([slow.stop(), fast.stop()]);
    }
  });

  it('events committed while every webhooks process is down are delivered when one starts', async () => {
    const receiver = await new Receiver().start();
    try {
      const other = await stack.createProduct({ name: 'Down' });
      await hooks.create({ productId: other.id, mode: 'test', url: receiver.url, events: ['entry.created'] });
      await stack.stopApp('webhooks');
      await signUp(stack, other.keys.test.publishable, 'while-down@example.com');
      await stack.startApp('webhooks');
      const [delivery] = await receiver.waitFor(1);
      expect(JSON.parse(delivery.body).data.entry.email).toBe('while-down@example.com');
    } finally {
      await receiver.stop();
    }
  });

  it('an event that no endpoint wants has its body deleted at once, with no delivery', async () => {
    const lonely = await stack.createProduct({ name: 'Nobody listens' });
    await signUp(stack, lonely.keys.live.publishable, 'unheard@example.com');
    const [event] = await stack.db.getRepository(EventRecord).findBy({ productId: lonely.id });
    expect(event.body).toBeNull();
    // The body waits in the event's outbox row, which goes once the fan-out found no endpoint.
    const row = () => stack.db.query(`SELECT 1 FROM outbox WHERE queue = 'webhooks' AND data->>'eventId' = $1`, [event.id]);
    await waitFor(async () => (await row()).length === 0, 'the body to go');
    expect(await stack.db.getRepository(Delivery).countBy({ eventId: event.id })).toBe(0);
  });

  it('signing secrets are stored encrypted', async () => {
    const endpoint = await hooks.create({ productId: product.id, mode: 'test', url: 'http://127.0.0.1:9/none' });
    const rows = await stack.db.getRepository(WebhookEndpoint).findBy({ id: endpoint.id });
    expect(rows[0].secret.toString('latin1')).not.toContain(endpoint.secret);
    expect(endpoint.secret).toMatch(/^whsec_/);
  });
});
