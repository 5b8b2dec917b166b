import { Queue } from 'bullmq';
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

/**
 * Closes a BullMQ worker or event listener within a bound. Once Redis went away under one, close()
 * can wait forever for an "end" its connection never emits (taskforcesh/bullmq#4656), which would
 * keep the process from stopping; the connection's reconnecting has been cancelled by then.
 */
export async function closeWithin(target: { close(): Promise<void> }, ms: number, what: string): Promise<void> {
  await withTimeout(target.close(), ms, `Closing ${what}`);
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
    // Failures surface on the calls that fail; an idle reconnect needs no log line.
    this.on('error', () => undefined);
  }

  static open(name: string, config: { REDIS_URL: string; QUEUE_PREFIX: string }): CommandQueue {
    return new CommandQueue(name, config.QUEUE_PREFIX, new Redis(commandOptions(config.REDIS_URL)));
  }

  override async close(): Promise<void> {
    await super.close();
    this.redis.disconnect();
  }
}
