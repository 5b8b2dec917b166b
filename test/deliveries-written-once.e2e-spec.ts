import { Delivery, DeliveryAttempt } from '@app/shared';
import { QueryRunner } from 'typeorm';
import { DeliveryLog } from '../apps/api/src/webhooks/delivery-log';
import { WebhooksService } from '../apps/api/src/webhooks/webhooks.service';
import { signUp } from './support/flows';
import { AppProcess } from './support/processes';
import { Receiver } from './support/receiver';
import { Stack } from './support/stack';
import { ThrowawayRedis } from './support/throwaway-redis';
import { waitFor } from './support/wait';

const env = { RATE_LIMIT_SIGNUP: '1000/1m', WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_TIMEOUT: '1s', RECONCILE_INTERVAL: '1s', WEBHOOK_RETRY_DELAYS: '1s,1s,1s,1s,1s' };

/**
 * A delivery's row is written once, after its first attempt, in the batch that deletes its outbox row
 * (issue 24). These tests hold that batch's commit back with a table lock on deliveries, the way a slow
 * PostgreSQL or a process stopped at the wrong moment would.
 */
describe('deliveries written once, after their first attempt', () => {
  let stack: Stack;
  let redis: ThrowawayRedis;
  let receiver: Receiver;
  const processes: AppProcess[] = [];
  let held: { release: () => Promise<void> } | undefined;

  beforeAll(async () => {
    redis = await ThrowawayRedis.start();
    stack = await Stack.start({ apps: ['api'], env: { ...env, REDIS_URL: redis.url } });
    receiver = await new Receiver().start();
  });
  afterEach(async () => {
    await held?.release();
    held = undefined;
    for (const app of processes.splice(0)) await app.stop();
    receiver.received.length = 0;
    receiver.answer = () => 200;
  });
  afterAll(async () => {
    await receiver.stop();
    await stack.stop();
    await redis.down();
  });

  /** A product with one endpoint at the receiver, for entry.created. */
  async function product(name: string) {
    const made = await stack.createProduct({ name });
    await stack.api.get(WebhooksService).create({ productId: made.id, mode: 'test', url: receiver.url, events: ['entry.created'] });
    return made;
  }

  /** Holds every write to deliveries until release() (or the test's end). */
  async function holdDeliveries(): Promise<{ release: () => Promise<void> }> {
    const runner: QueryRunner = stack.db.createQueryRunner();
    await runner.startTransaction();
    await runner.query('LOCK TABLE deliveries IN SHARE MODE');
    let released = false;
    held = {
      release: async () => {
        if (released) return;
        released = true;
        await runner.rollbackTransaction();
        await runner.release();
      },
    };
    return held;
  }

  const eventIdsOf = (requests: { body: string }[]) => requests.map((request) => JSON.parse(request.body).id as string).sort();
  const deliveryIdsOf = (requests: { headers: Record<string, unknown> }[]) => requests.map((request) => String(request.headers['service-delivery'])).sort();
  const webhooksRows = async () => (await stack.db.query(`SELECT count(*)::int AS n FROM outbox WHERE queue = 'webhooks'`))[0].n as number;
  const succeeded = async (productId: string) =>
    (await stack.db.query(`SELECT count(*)::int AS n FROM deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id WHERE w.product_id = $1 AND d.status = 'succeeded'`, [productId]))[0]
      .n as number;
  const bodies = async () => (await stack.db.query(`SELECT count(*)::int AS n FROM events WHERE body IS NOT NULL`))[0].n as number;

  it('a process killed after its POSTs and before its batch commits: every delivery is made again, with the same ids, and logged once', async () => {
    const { id, keys } = await product('Killed before the commit');
    const hold = await holdDeliveries();
    processes.push(await AppProcess.start('webhooks', stack.config, { env: { ...env, REDIS_URL: redis.url } }));
    for (let i = 0; i < 5; i++) await signUp(stack, keys.test.publishable, `killed-${i}@example.com`);
    await receiver.waitFor(5, 20_000);
    await processes[0].kill();
    // Its claims went with it: another process makes the same deliveries again, while the batch is still held.
    processes.push(await AppProcess.start('webhooks', stack.config, { env: { ...env, REDIS_URL: redis.url } }));
    const all = await receiver.waitFor(10, 20_000);
    await hold.release();

    const [before, again] = [all.slice(0, 5), all.slice(5)];
    expect(eventIdsOf(again)).toEqual(eventIdsOf(before));
    expect(deliveryIdsOf(again)).toEqual(deliveryIdsOf(before));
    await waitFor(async () => (await succeeded(id)) === 5, 'the five deliveries to be written');
    const written = await stack.db.query(
      `SELECT d.id, (SELECT count(*)::int FROM delivery_attempts a WHERE a.delivery_id = d.id) AS attempts
       FROM deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id WHERE w.product_id = $1 ORDER BY d.id`,
      [id],
    );
    expect(written).toEqual(deliveryIdsOf(before).map((deliveryId) => ({ id: deliveryId, attempts: 1 })));
    await waitFor(async () => (await webhooksRows()) === 0, 'the outbox rows to go');
    expect(await bodies()).toBe(0);
  });

  it('a process killed just after its batch committed: no delivery is made again', async () => {
    const { keys } = await product('Killed after the commit');
    processes.push(await AppProcess.start('webhooks', stack.config, { env: { ...env, REDIS_URL: redis.url } }));
    for (let i = 0; i < 3; i++) await signUp(stack, keys.test.publishable, `committed-${i}@example.com`);
    await receiver.waitFor(3);
    await waitFor(async () => (await webhooksRows()) === 0, 'the batch to commit');
    await processes[0].kill();
    processes.push(await AppProcess.start('webhooks', stack.config, { env: { ...env, REDIS_URL: redis.url } }));
    // The new process works: a later event reaches the receiver, and nothing before it came twice.
    await signUp(stack, keys.test.publishable, 'later@example.com');
    const all = await receiver.waitFor(4);
    expect(new Set(eventIdsOf(all)).size).toBe(4);
    expect(JSON.parse(all[3].body).data.entry.email).toBe('later@example.com');
  });

  it('Redis lost while a batch of first attempts is held, half of them failed: every delivery succeeds on a retry, its first attempt inline', async () => {
    const { id, keys } = await product('Redis lost');
    const hold = await holdDeliveries();
    processes.push(await AppProcess.start('webhooks', stack.config, { env: { ...env, REDIS_URL: redis.url } }));
    receiver.answer = (index) => (index < 2 ? 500 : 200);
    for (let i = 0; i < 4; i++) await signUp(stack, keys.test.publishable, `wiped-${i}@example.com`);
    await receiver.waitFor(4, 20_000);
    await redis.shutdownNosave();
    await redis.up();
    await hold.release();

    await waitFor(async () => (await succeeded(id)) === 4, 'every delivery to succeed', { timeoutMs: 30_000 });
    const logs: { attempts: [number, number, boolean][] }[] = await stack.db.query(
      `SELECT array_agg(json_build_array(a.attempt, a.status_code, a.attempt = 1 AND d.attempted_at IS NOT NULL) ORDER BY a.attempt) AS attempts
       FROM deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id JOIN delivery_attempts a ON a.delivery_id = d.id
       WHERE w.product_id = $1 GROUP BY d.id ORDER BY count(*) DESC`,
      [id],
    );
    expect(logs.map((log) => log.attempts)).toEqual([
      [[1, 500, true], [2, 200, false]],
      [[1, 500, true], [2, 200, false]],
      [[1, 200, true]],
      [[1, 200, true]],
    ]);
    await waitFor(async () => (await bodies()) === 0, 'the retried events’ bodies to go');
    expect(await webhooksRows()).toBe(0);
  });

  it('the log reads a delivery’s attempts in order, the first inline, and "retry now" sends one that waits', async () => {
    const { id, keys } = await product('The log');
    receiver.answer = () => 500;
    processes.push(await AppProcess.start('webhooks', stack.config, { env: { ...env, REDIS_URL: redis.url, WEBHOOK_RETRY_DELAYS: '1h,1h,1h,1h,1h' } }));
    await signUp(stack, keys.test.publishable, 'logged@example.com');
    const [first] = await receiver.waitFor(1);
    const deliveryId = String(first.headers['service-delivery']);
    await waitFor(async () => (await stack.db.getRepository(Delivery).findOneBy({ id: deliveryId }))?.nextAttemptAt != null, 'the first attempt to be logged');
    // Attempts 2 to 4 as an older version would log them, stored out of order.
    const at = (seconds: number) => new Date(Date.now() + seconds * 1000);
    await stack.db.getRepository(DeliveryAttempt).insert([
      { deliveryId, attempt: 4, attemptedAt: at(3), statusCode: 502, error: null, durationMs: 4 },
      { deliveryId, attempt: 2, attemptedAt: at(1), statusCode: null, error: 'ECONNRESET', durationMs: 2 },
      { deliveryId, attempt: 3, attemptedAt: at(2), statusCode: 503, error: null, durationMs: 3 },
    ]);
    const endpoint = (await stack.api.get(WebhooksService).list(id, 'test'))[0];
    const [logged] = await stack.api.get(DeliveryLog).of(endpoint.id);
    expect(logged.id).toBe(deliveryId);
    expect(logged.attempts.map(({ attempt, statusCode, error }) => [attempt, statusCode, error])).toEqual([
      [1, 500, null],
      [2, null, 'ECONNRESET'],
      [3, 503, null],
      [4, 502, null],
    ]);

    receiver.answer = () => 200;
    await stack.api.get(DeliveryLog).retryNow(deliveryId);
    const [, fifth] = await receiver.waitFor(2);
    expect(fifth.headers['service-delivery']).toBe(deliveryId);
    await waitFor(async () => (await stack.db.getRepository(Delivery).findOneBy({ id: deliveryId }))?.status === 'succeeded', 'the delivery to succeed');
    expect((await stack.api.get(DeliveryLog).of(endpoint.id))[0].attempts.map(({ attempt, statusCode }) => [attempt, statusCode])).toEqual([
      [1, 500],
      [2, null],
      [3, 503],
      [4, 502],
      [5, 200],
    ]);
  });
});
