import { ConnectionOptions, Queue, QueueBase } from 'bullmq';
import Redis, { Cluster, RedisOptions } from 'ioredis';
import { isClusterConfig, RedisConfig } from '../config/config';

/** A connection to a single Redis or to a Redis Cluster; both take the same commands. */
export type RedisConnection = Redis | Cluster;

/**
 * How long a closed connection waits for its socket's end before it cuts it. ioredis's own 2 s holds the
 * process open that long when the socket was gone already (Redis away at shutdown): its close never
 * comes again. A live Redis answers a close well within this.
 */
export const REDIS_CLOSE_GRACE_MS = 100;

/** ioredis options from a redis:// or rediss:// URL; of a cluster's URL, the options of each node. */
export function redisOptions(url: string) {
  const parsed = new URL(url);
  const db = parsed.pathname.replace('/', '');
  return {
    host: parsed.hostname,
    port: Number(parsed.port || 6379),
    username: parsed.username ? decodeURIComponent(parsed.username) : undefined,
    password: parsed.password ? decodeURIComponent(parsed.password) : undefined,
    db: db ? Number(db) : 0,
    tls: parsed.protocol.startsWith('rediss') ? ({} as object) : undefined,
    disconnectTimeout: REDIS_CLOSE_GRACE_MS,
  };
}

/**
 * Options for connections that only send commands (producers, rate limiters): a command fails at
 * once while Redis is away instead of waiting in memory, so callers can fall back.
 */
const FAIL_FAST = { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2000, commandTimeout: 2000 };

/** Workers block on Redis, so their connections must keep retrying. */
const KEEP_TRYING = { maxRetriesPerRequest: null };

/** A command connection (FAIL_FAST) to the configured Redis or Redis Cluster. */
export function openCommandConnection(config: RedisConfig): RedisConnection {
  return connect(config, FAIL_FAST);
}

/**
 * The connection to give BullMQ's queues, workers and event listeners. On a single Redis, options:
 * BullMQ opens and closes connections of its own. On a cluster, a cluster client: BullMQ uses it and
 * copies of it, but closes only the copies, so whoever made it ends it with endQueueConnection once
 * what it was given to is closed. It is already connecting when BullMQ gets it: BullMQ then waits for
 * it to be ready, through the cluster's own retries. Given one that waits to be used, BullMQ would
 * connect it itself and take the first failed look at the cluster (a seed slow to answer) as final.
 */
export function queueConnection(config: RedisConfig): ConnectionOptions {
  return isClusterConfig(config) ? connect(config, KEEP_TRYING) : { ...redisOptions(config.REDIS_URL), ...KEEP_TRYING };
}

export function endQueueConnection(connection: ConnectionOptions | undefined): void {
  if (connection instanceof Cluster) connection.disconnect();
}

/** BullMQ's key prefix: on a cluster in braces, a hash tag that puts all of a queue's keys in one slot, as its scripts need. */
export function queuePrefix(config: RedisConfig & { QUEUE_PREFIX: string }): string {
  return isClusterConfig(config) ? `{${config.QUEUE_PREFIX}}` : config.QUEUE_PREFIX;
}

function connect(config: RedisConfig, options: RedisOptions): RedisConnection {
  const node = { ...redisOptions(config.REDIS_URL), ...options };
  if (!isClusterConfig(config)) return new Redis(node);
  const seeds = config.REDIS_CLUSTER_NODES ?? [`${node.host}:${node.port}`];
  // The cluster's offline queue stays on: without it every command reaching a node whose connection is
  // still opening (each opens when first used) would fail. A cluster's commands are bounded by the nodes'
  // commandTimeout and by callers' own timeouts instead, and rate limits check that it is ready.
  const { enableOfflineQueue: _offlineQueue, host: _host, port: _port, ...redisOptionsOfNodes } = node;
  return new Cluster(seeds.map(seedNode), { redisOptions: redisOptionsOfNodes });
}

/** host:port, the host possibly an IPv6 address in brackets. */
function seedNode(seed: string): { host: string; port: number } {
  const colon = seed.lastIndexOf(':');
  return { host: seed.slice(0, colon).replace(/^\[(.*)\]$/, '$1'), port: Number(seed.slice(colon + 1)) };
}

/** Runs a Redis call with a bound, since some calls wait for a connection however they are configured. */
export async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The part of an ioredis client that endReconnecting needs; BullMQ keeps its clients to itself. */
interface OwnedClient {
  status: string;
  disconnect(): void;
  setStatus(status: 'end'): void;
  flushQueue(error: Error): void;
}

/**
 * Ends the connections of a BullMQ queue, worker or event listener that are waiting to reconnect,
 * so that closing it can finish. ioredis emits no "end" for a connection closed in that state, which
 * BullMQ's close() waits for, and it goes on reconnecting for ever (taskforcesh/bullmq#4656): that is
 * the state just after Redis came back, or while it is away. This ends it as ioredis would.
 */
export function endReconnecting(target: QueueBase): void {
  const backend = target.getBackend() as unknown as Record<'connection' | 'blockingConnection', { _client?: OwnedClient } | undefined>;
  for (const connection of [backend.connection, backend.blockingConnection]) {
    const client = connection?._client;
    if (client?.status !== 'reconnecting') continue;
    client.disconnect();
    client.setStatus('end');
    // The commands waiting for the reconnect (a worker's blocking wait among them) fail now, not when a watchdog gives up on them.
    client.flushQueue(new Error('Connection is closed.'));
  }
}

/**
 * Closes a BullMQ worker or event listener, ending what waits to reconnect; bounded, for what else may
 * hang. The close starts first: a worker's loop that finds its blocking connection ended before it
 * knows it is closing connects it again and blocks on it for the whole drainDelay.
 */
export async function closeWithin(target: QueueBase, ms: number, what: string): Promise<void> {
  const closing = target.close();
  endReconnecting(target);
  await withTimeout(closing, ms, `Closing ${what}`);
}

/**
 * A queue for adding and reading jobs on a connection of its own that fails fast (FAIL_FAST).
 * The connection is ours, not BullMQ's: BullMQ's close() leaves a connection that is reconnecting at
 * that moment reconnecting for ever, so close() ends it with a disconnect, which also stops that.
 */
export class CommandQueue extends Queue {
  private constructor(
    name: string,
    prefix: string,
    private readonly redis: RedisConnection,
  ) {
    super(name, { connection: redis, prefix });
    // Failures surface on the calls that fail; an idle reconnect needs no log line. The connection gets
    // a listener of its own: BullMQ takes its away on close, and a connection caught mid-connect by the
    // close still reports its failed ready check, which ioredis would print as an unhandled error.
    this.on('error', () => undefined);
    redis.on('error', () => undefined);
  }

  static open(name: string, config: RedisConfig & { QUEUE_PREFIX: string }): CommandQueue {
    return new CommandQueue(name, queuePrefix(config), openCommandConnection(config));
  }

  override async close(): Promise<void> {
    await super.close();
    this.redis.disconnect();
  }
}
