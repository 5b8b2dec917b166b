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
