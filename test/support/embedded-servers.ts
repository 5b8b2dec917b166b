import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
// npm start's own embedded servers, shared with the tests (plain JavaScript, as npm start runs it before any build).
import { EmbeddedServers, startEmbeddedServers } from '../../scripts/embedded/start-servers';

type Servers = EmbeddedServers;

/** Kept between jest's global setup and teardown, which run in the same process. */
const running = globalThis as { embeddedServers?: { servers: Servers; dataDir: string } };

/**
 * The README's defaults for a bare machine: with DATABASE_URL (or TEST_DATABASE_URL) unset the tests use
 * an embedded PostgreSQL, with REDIS_URL unset a redis-server of their own, both under .data/ for this
 * run only. What is set is used as it is (CI sets both to the machine's own servers).
 */
export async function startEmbeddedWhereUnset(): Promise<void> {
  const postgres = !process.env.TEST_DATABASE_URL && !process.env.DATABASE_URL;
  const redis = !process.env.REDIS_URL;
  if (!postgres && !redis) return;
  const dataDir = join(__dirname, '..', '..', '.data', `test-${randomBytes(4).toString('hex')}`);
  const servers = await startEmbeddedServers({ dataDir, postgres, redis, persistent: false });
  running.embeddedServers = { servers, dataDir };
  if (servers.databaseUrl) process.env.DATABASE_URL = servers.databaseUrl.replace(/\/waitlist$/, '/postgres');
  if (servers.redisUrl) process.env.REDIS_URL = servers.redisUrl;
}

export async function stopEmbedded(): Promise<void> {
  const embedded = running.embeddedServers;
  if (!embedded) return;
  await embedded.servers.stop();
  await rm(embedded.dataDir, { recursive: true, force: true });
}
