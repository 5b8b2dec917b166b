import { enqueue, EventRecord, newId, QueueName } from '@app/shared';
import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import { WebhooksService } from '../apps/api/src/webhooks/webhooks.service';
import { Receiver } from '../test/support/receiver';
import { Stack } from '../test/support/stack';

const EVENTS = 1000;
const CONCURRENCY = 50;

/**
 * Webhook deliveries per second to a local receiver (outbox → fan-out → signed POST → logged
 * attempt), next to a plain undici POST loop of the same bodies to the same receiver in the same run.
 */
describe('webhook deliveries', () => {
  let stack: Stack;
  let receiver: Receiver;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api', 'webhooks'], env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
    receiver = await new Receiver().start();
  });
  afterAll(async () => {
    await receiver.stop();
    await stack.stop();
  });

  it('reports deliveries per second against plain POSTs', async () => {
    const body = JSON.stringify({ id: 'evt_x', type: 'entry.created', data: { entry: { email: 'x@example.com' } }, pad: 'x'.repeat(300) });
    const baselineStart = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next++ < EVENTS) {
          const response = await request(`${receiver.url}/plain`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
          await response.body.dump();
        }
      }),
    );
    const baselineMs = performance.now() - baselineStart;
    receiver.received.length = 0;

    const product = await stack.createProduct();
    await stack.api.get(WebhooksService).create({ productId: product.id, mode: 'test', url: `${receiver.url}/hook` });
    const start = performance.now();
    await stack.db.transaction(async (manager) => {
      for (let i = 0; i < EVENTS; i++) {
        const id = newId('evt');
        const now = new Date();
        await manager.insert(EventRecord, { id, productId: product.id, mode: 'test', type: 'entry.created', createdAt: now, body: body.replace('evt_x', id) });
        await enqueue(manager, QueueName.Webhooks, 'fan-out', { eventId: id }, now);
      }
    });
    await receiver.waitFor(EVENTS, 300_000);
    const serviceMs = performance.now() - start;

    const rate = (ms: number) => `${((EVENTS / ms) * 1000).toFixed(0).padStart(6)} per s`;
    process.stdout.write(
      [
        '',
        `plain undici POSTs (baseline)      ${baselineMs.toFixed(0).padStart(7)} ms  ${rate(baselineMs)}`,
        `webhook deliveries                 ${serviceMs.toFixed(0).padStart(7)} ms  ${rate(serviceMs)}`,
        `ratio: delivering takes ${(serviceMs / baselineMs).toFixed(2)}× the baseline`,
        '',
      ].join('\n'),
    );
  });
});
