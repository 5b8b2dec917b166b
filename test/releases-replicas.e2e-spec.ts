import Redis from 'ioredis';
import { ProductsService } from '../apps/api/src/products/products.service';
import { seedLine } from './support/invitations';
import { AppProcess } from './support/processes';
import { Product, Stack } from './support/stack';
import { ThrowawayRedis } from './support/throwaway-redis';
import { waitFor } from './support/wait';

const ENV = { MAINTENANCE_INTERVAL: '1s', RATE_LIMIT_API: '10000/1s' };
const CAPACITY = 30;
/** A release every 3 seconds (cron-parser and BullMQ take six fields, seconds first): a tick we can wait for. */
const PERIOD_MS = 3000;

/**
 * Two api processes and two mailers (and the test's own api beside them: three replicas run releases)
 * on a Redis of this test's own, which the test wipes between ticks.
 */
describe('releases across replicas', () => {
  let redis: ThrowawayRedis;
  let stack: Stack;
  const apps: AppProcess[] = [];

  beforeAll(async () => {
    redis = await ThrowawayRedis.start();
    stack = await Stack.start({ apps: ['api'], env: { ...ENV, REDIS_URL: redis.url } });
    for (const name of ['api', 'api', 'mailer', 'mailer'] as const) apps.push(await AppProcess.start(name, stack.config, { env: ENV }));
  }, 120_000);
  afterAll(async () => {
    for (const app of apps) await app.stop();
    await stack?.stop();
    await redis?.down();
  });

  const invited = async (productId: string): Promise<number> =>
    (await stack.db.query(`SELECT count(*)::int AS n FROM entries WHERE product_id = $1 AND state = 'invited'`, [productId]))[0].n;
  const runs = async (releaseId: string): Promise<{ tick_at: Date; invited: number; skipped_for_capacity: number }[]> =>
    stack.db.query(`SELECT tick_at, invited, skipped_for_capacity FROM release_runs WHERE release_id = $1 AND finished_at IS NOT NULL ORDER BY tick_at`, [releaseId]);

  it('runs each tick exactly once, never passes the cap beside 20 concurrent invite-next calls, and loses no tick when Redis is wiped', async () => {
    const product: Product = await stack.createProduct();
    await stack.api.get(ProductsService).update(product.id, { capacity: CAPACITY });
    await seedLine(stack, { productId: product.id, mode: 'test' }, 200, `replicas-${product.id}`);
    const [api1, api2] = apps;
    const call = (app: AppProcess, method: string, path: string, body?: unknown) =>
      fetch(`${app.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${product.keys.test.secret}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });

    let most = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        most = Math.max(most, await invited(product.id));
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();

    const release = (await (await call(api1, 'POST', '/api/v1/releases', { count: 4, pattern: '*/3 * * * * *', timeZone: 'Europe/Berlin' })).json()) as { id: string };
    await waitFor(async () => (await runs(release.id)).length >= 1, 'the first scheduled run', { timeoutMs: 15_000 });
    const manual = await Promise.all(Array.from({ length: 20 }, (_, i) => call(i % 2 ? api2 : api1, 'POST', '/api/v1/entries/invite-next', { count: 1 })));
    const statuses = manual.map((answer) => answer.status);
    expect(statuses.every((status) => status === 200 || status === 409)).toBe(true);
    for (const answer of manual.filter((answer) => answer.status === 409)) expect(((await answer.json()) as { error: { code: string } }).error.code).toBe('capacity_reached');

    await waitFor(async () => (await runs(release.id)).length >= 4, 'four scheduled runs', { timeoutMs: 30_000 });
    // Wiped just after a run, between two ticks: the schedulers and every job are gone.
    const wiper = new Redis(redis.url);
    await waitFor(async () => {
      const newest = (await runs(release.id)).at(-1)!;
      return Date.now() - newest.tick_at.getTime() < 1000;
    }, 'a run that just ended');
    await wiper.flushdb();
    wiper.disconnect();
    const wipedAt = Date.now();
    await waitFor(async () => (await runs(release.id)).some((run) => run.tick_at.getTime() > wipedAt + PERIOD_MS), 'two ticks after the wipe', { timeoutMs: 30_000 });

    await call(api1, 'PATCH', `/api/v1/releases/${release.id}`, { paused: true });
    sampling = false;
    await sampler;

    const done = await runs(release.id);
    const ticks = done.map((run) => run.tick_at.getTime());
    expect(new Set(ticks).size).toBe(ticks.length);
    // Every tick from the first to the last has its run: none lost to the wipe.
    expect(ticks.slice(1).map((tick, i) => tick - ticks[i])).toEqual(Array(ticks.length - 1).fill(PERIOD_MS));
    expect(most).toBeLessThanOrEqual(CAPACITY);
    expect(await invited(product.id)).toBe(CAPACITY);
    expect(done.some((run) => run.skipped_for_capacity > 0)).toBe(true);
    // One mail per invited entry: no run invited anyone twice.
    expect(stack.mail.mails.filter((mail) => mail.subject.includes('invited'))).toHaveLength(CAPACITY);
  }, 120_000);
});
