import { Delivery, endQueueConnection, loadConfig, openCommandConnection, queueConnection } from '@app/shared';
import { Queue, Worker } from 'bullmq';
import { Cluster } from 'ioredis';
import { WebhooksService } from '../apps/api/src/webhooks/webhooks.service';
import { bearer, joinLine } from './support/flows';
import { codeIn, invitationsTo } from './support/invitations';
import { parseExposition, valueOf } from './support/prometheus';
import { Receiver } from './support/receiver';
import { Stack } from './support/stack';
import { TcpProxy } from './support/tcp-proxy';
import { ThrowawayCluster } from './support/throwaway-redis';
import { waitFor } from './support/wait';

const METRICS_TOKEN = 'cluster-metrics-token';

describe('on a Redis Cluster of three masters', () => {
  let cluster: ThrowawayCluster;
  let receiver: Receiver;
  let stack: Stack;

  beforeAll(async () => {
    cluster = await ThrowawayCluster.start(3);
    receiver = await new Receiver().start();
    stack = await Stack.start({
      env: {
        REDIS_URL: `redis+cluster://127.0.0.1:${cluster.ports[0]}`,
        WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
        WEBHOOK_RETRY_DELAYS: '200ms',
        METRICS_TOKEN,
      },
    });
  });
  afterAll(async () => {
    await stack?.stop();
    await receiver?.stop();
    await cluster?.stop();
  });

  it('a sign-up is confirmed by mail, an invitation goes out, and a webhook is delivered on its retry, the queues each in one slot', async () => {
    // The sign-up's rate limits count in memory until the command connection has found the cluster.
    await waitFor(async () => (await stack.request({ method: 'GET', url: '/readyz' })).status === 200, 'readyz');
    const product = await stack.createProduct();
    const secret = product.keys.test.secret;
    await stack.api.get(WebhooksService).create({ productId: product.id, mode: 'test', url: receiver.url, events: ['entry.invited'] });
    // The first attempt fails, so that the second goes through the deliveries queue.
    receiver.answer = (index) => (index === 0 ? 500 : 200);

    const entry = await joinLine(stack, product.keys.test.publishable, 'ada@example.com');
    const invited = await stack.request({ method: 'POST', url: `/api/v1/entries/${entry.id}/invite`, headers: bearer(secret) });
    expect(invited.status).toBe(200);
    expect(invited.json()).toMatchObject({ id: entry.id, state: 'invited' });
    const [mail] = invitationsTo(stack, 'ada@example.com');
    const verified = await stack.request({ method: 'POST', url: '/api/v1/invites/verify', headers: bearer(secret), body: { token: codeIn(mail) } });
    expect(verified.json()).toEqual({ valid: true, email: 'ada@example.com' });

    const [first, second] = await receiver.waitFor(2);
    expect(second.headers['service-delivery']).toBe(first.headers['service-delivery']);
    await waitFor(async () => (await stack.db.getRepository(Delivery).findOneBy({}))?.status === 'succeeded', 'the delivery to succeed');

    // BullMQ's keys carry the hash-tagged prefix, so each queue's keys (all of them here) sit on one master.
    const prefix = stack.config.QUEUE_PREFIX;
    const byNode = await cluster.keysByNode(`{${prefix}}:*`);
    expect(byNode.filter((keys) => keys.length > 0)).toHaveLength(1);
    expect(byNode.flat()).toEqual(expect.arrayContaining([`{${prefix}}:invitations:id`, `{${prefix}}:deliveries:id`]));
    // The rate limits counted in the cluster too.
    expect((await cluster.keysByNode(`${prefix}:rl:*`)).flat().length).toBeGreaterThan(0);

    const samples = parseExposition((await stack.request({ method: 'GET', url: '/metrics', headers: bearer(METRICS_TOKEN) })).text);
    expect(valueOf(samples, 'waitlist_queue_collected')).toBe(1);
    expect(valueOf(samples, 'waitlist_queue_workers', { queue: 'invitations' })).toBeGreaterThanOrEqual(1);
    expect(valueOf(samples, 'waitlist_queue_workers', { queue: 'deliveries' })).toBeGreaterThanOrEqual(1);
  });

  it('REDIS_CLUSTER_NODES selects the cluster from seed nodes, with REDIS_URL giving only the credentials', async () => {
    const config = loadConfig({ REDIS_URL: 'redis://127.0.0.1:1', REDIS_CLUSTER_NODES: cluster.ports.slice(1).map((port) => `127.0.0.1:${port}`).join(',') });
    const redis = openCommandConnection(config);
    try {
      await waitFor(() => redis.status === 'ready', 'the cluster connection');
      // Keys in different slots: a single node would answer MOVED for some of them.
      const keys = ['a', 'b', 'c', 'd', 'e', 'f'].map((name) => `${stack.config.QUEUE_PREFIX}:seed-${name}`);
      for (const key of keys) await redis.set(key, key, 'EX', 60);
      expect(await Promise.all(keys.map((key) => redis.get(key)))).toEqual(keys);
      expect((await cluster.keysByNode(`${stack.config.QUEUE_PREFIX}:seed-*`)).filter((found) => found.length > 0).length).toBeGreaterThan(1);
    } finally {
      redis.disconnect();
    }
  });

  it('queues and workers outlast a first look at the cluster that fails: they wait for the cluster, not for its first answer', async () => {
    // The seed answers nothing until the cluster client's first slot refresh (1 s) has given up.
    const seed = await TcpProxy.start({ host: '127.0.0.1', port: cluster.ports[0] });
    seed.hold();
    const connection = queueConnection(loadConfig({ REDIS_URL: `redis+cluster://127.0.0.1:${seed.port}` })) as Cluster;
    const prefix = `{${stack.config.QUEUE_PREFIX}-seed}`;
    const queue = new Queue('first-look', { connection, prefix });
    const worker = new Worker('first-look', async (job) => job.data.n * 2, { connection, prefix });
    queue.on('error', () => undefined);
    worker.on('error', () => undefined);
    try {
      await waitFor(() => connection.status === 'reconnecting', 'the first slot refresh to fail');
      seed.open();
      const job = await queue.add('double', { n: 21 });
      await waitFor(async () => (await queue.getJob(job.id!))?.returnvalue === 42, 'the worker to do the job');
    } finally {
      await worker.close();
      await queue.close();
      endQueueConnection(connection);
      await seed.stop();
    }
  });
});
