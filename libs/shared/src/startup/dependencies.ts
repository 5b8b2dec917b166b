import { networkInterfaces } from 'node:os';
import Redis from 'ioredis';
import { Client } from 'pg';
import { isClusterConfig, RedisConfig } from '../config/config';
import { redisOptions } from '../queues/redis';

/** What a process cannot start with, in one sentence that names the setting and what to do; `cause`, the error behind it. */
export class StartupError extends Error {}

/** PostgreSQL's code for a database that does not exist. */
export const MISSING_DATABASE = '3D000';

const CHECK_TIMEOUT_MS = 5000;

/** Where a URL points, without its user and password. */
const place = (url: URL) => url.host || 'localhost';

function unreachable(error: unknown): string | undefined {
  const code = (error as { code?: string }).code;
  const reasons: Record<string, string> = {
    ECONNREFUSED: 'connection refused',
    ENOTFOUND: 'no such host',
    EAI_AGAIN: 'no such host',
    ETIMEDOUT: 'no answer',
    EHOSTUNREACH: 'host unreachable',
    ECONNRESET: 'connection reset',
  };
  if (code && reasons[code]) return reasons[code];
  if (/timeout/i.test((error as Error).message ?? '')) return 'no answer';
  return undefined;
}

/** How a failed connection to PostgreSQL reads to whoever started the process; undefined when it is none of the known ones. */
export function explainDatabaseError(error: unknown, databaseUrl: string): string | undefined {
  const url = new URL(databaseUrl);
  const user = decodeURIComponent(url.username) || 'postgres';
  const database = decodeURIComponent(url.pathname.slice(1)) || user;
  const code = (error as { code?: string }).code;
  const reason = unreachable(error);
  if (reason) {
    return `PostgreSQL at ${place(url)} cannot be reached (${reason}): start it, or set DATABASE_URL to the PostgreSQL you run, like postgres://user:password@host:5432/waitlist.`;
  }
  if (code === '28P01' || code === '28000') {
    return `PostgreSQL at ${place(url)} refused the user ${user} (${(error as Error).message}): check the user and password in DATABASE_URL.`;
  }
  if (code === MISSING_DATABASE) {
    return `The database ${database} does not exist on ${place(url)}: npm run migrate creates it and applies the migrations (with the same DATABASE_URL), or correct the database name in DATABASE_URL.`;
  }
  if (code === '42501' && /create database/i.test((error as Error).message)) {
    return `The database ${database} does not exist on ${place(url)} and the user ${user} may not create it: create it (CREATE DATABASE "${database}" OWNER "${user}"), or set DATABASE_URL to a user that may.`;
  }
  return undefined;
}

/** How a failed connection to Redis reads to whoever started the process; undefined when it is none of the known ones. */
export function explainRedisError(error: unknown, redisUrl: string): string | undefined {
  const url = new URL(redisUrl);
  const message = (error as Error).message ?? '';
  const reason = unreachable(error);
  if (reason) {
    return `Redis at ${place(url)} cannot be reached (${reason}): start it (redis-server), or set REDIS_URL to the Redis you run, like redis://host:6379.`;
  }
  if (message.startsWith('NOAUTH') || /without any password configured/i.test(message)) {
    return url.password
      ? `Redis at ${place(url)} has no password, but REDIS_URL gives one: leave the password out of REDIS_URL.`
      : `Redis at ${place(url)} asks for a password: put it in REDIS_URL, like redis://:password@${place(url)}.`;
  }
  if (message.startsWith('WRONGPASS')) return `Redis at ${place(url)} refused the user and password in REDIS_URL: check them.`;
  return undefined;
}

/** Connects to PostgreSQL once, as the app will; a failure becomes a StartupError with its sentence. */
export async function checkDatabase(databaseUrl: string): Promise<void> {
  const client = new Client({ connectionString: databaseUrl, connectionTimeoutMillis: CHECK_TIMEOUT_MS });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    throw new StartupError(explainDatabaseError(error, databaseUrl) ?? `PostgreSQL (DATABASE_URL) refused the connection: ${(error as Error).message}`, { cause: error });
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Sends Redis one PING, as the app will connect; a failure becomes a StartupError with its sentence. */
export async function checkRedis(config: RedisConfig): Promise<void> {
  // A cluster's nodes are found through its seeds, each answered by its own node: its clients report them.
  if (isClusterConfig(config)) return;
  const redis = new Redis({
    ...redisOptions(config.REDIS_URL),
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: CHECK_TIMEOUT_MS,
  });
  // A refused connection may reach connect() only as 'Connection is closed.': the error event tells why.
  let reported: Error | undefined;
  redis.on('error', (error: Error) => (reported ??= error));
  try {
    await redis.connect();
    await redis.ping();
  } catch (caught) {
    const error = explainRedisError(caught, config.REDIS_URL) ? caught : (reported ?? caught);
    throw new StartupError(explainRedisError(error, config.REDIS_URL) ?? `Redis (REDIS_URL) refused the connection: ${(error as Error).message}`, { cause: error });
  } finally {
    redis.disconnect();
  }
}

/** Both servers, side by side: the sentence of the first that fails. */
export async function checkDependencies(config: RedisConfig & { DATABASE_URL: string }): Promise<void> {
  await Promise.all([checkDatabase(config.DATABASE_URL), checkRedis(config)]);
}

/**
 * Where an app listens: HOST when set, else every address, IPv6 and IPv4 both (`::` is dual stack on
 * Linux) where the host has IPv6, and every IPv4 address where it has none. Node's own servers pick
 * the same without a host; Fastify's default would be localhost alone.
 */
export function listenHost(host: string | undefined): string {
  if (host) return host;
  const hasIpv6 = Object.values(networkInterfaces()).some((addresses) => addresses?.some((address) => address.family === 'IPv6'));
  return hasIpv6 ? '::' : '0.0.0.0';
}

/** The address an app listens on is taken or not to be had: its own sentence, naming the variable that sets it. */
export function explainListenError(error: unknown, port: number, variable: 'PORT' | 'HEALTH_PORT'): string | undefined {
  const code = (error as { code?: string }).code;
  if (code === 'EADDRNOTAVAIL') return 'HOST is not an address of this machine: set it to one of its addresses, or leave it unset to listen on all of them.';
  if (code === 'EADDRINUSE') return `Port ${port} is already in use by another process: stop that process, or set ${variable} to a free port.`;
  if (code === 'EACCES') return `Port ${port} may not be opened by this user: set ${variable} to a port above 1023.`;
  return undefined;
}

/** The last word of an entry point that could not start: the sentence, never a stack trace, and exit code 1. */
export function exitWithReason(error: unknown): never {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
