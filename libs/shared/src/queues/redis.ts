import { Queue, QueueBase } from 'bullmq';
import Redis from 'ioredis';

/** ioredis options from a redis:// or rediss:// URL. */
export function redisOptions(url: string) {
  const parsed = new URL(url);
  const db = parsed.pathname.replace('/', '');
  return {
    host: parsed.hostname,
    port: Number(parsed.port || 6379),
    username: parsed.username ? decodeURIComponent(parsed.username) : undefined,
    password: parsed.password ? decodeURIComponent(parsed.password) : undefined,
    db: db ? Number(db) : 0,
    tls: parsed.protocol === 'rediss:' ? ({} as object) : undefined,
  };
}

/**
 * Options for connections that only send commands (producers, rate limiters): a command fails at
 * once while Redis is away instead of waiting in memory, so callers can fall back.
 */
export function commandOptions(url: string) {
  return {
    ...redisOptions(url),
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    commandTimeout: 2000,
  };
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
 * A queue for adding and reading jobs on a connection of its own that fails fast (commandOptions).
 * The connection is ours, not BullMQ's: BullMQ's close() leaves a connection that is reconnecting at
 * that moment reconnecting for ever, so close() ends it with a disconnect, which also stops that.
 */
export class CommandQueue extends Queue {
  private constructor(
    name: string,
    prefix: string,
    private readonly redis: Redis,
  ) {
    super(name, { connection: redis, prefix });
    // Failures surface on the calls that fail; an idle reconnect needs no log line. The connection gets
    // a listener of its own: BullMQ takes its away on close, and a connection caught mid-connect by the
    // close still reports its failed ready check, which ioredis would print as an unhandled error.
    this.on('error', () => undefined);
    redis.on('error', () => undefined);
  }

  static open(name: string, config: { REDIS_URL: string; QUEUE_PREFIX: string }): CommandQueue {
    return new CommandQueue(name, config.QUEUE_PREFIX, new Redis(commandOptions(config.REDIS_URL)));
  }

  override async close(): Promise<void> {
    await super.close();
    this.redis.disconnect();
  }
}
