import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { withTimeout } from '../queues/redis';
import { RedisClient } from './redis-client';

type Server = 'PostgreSQL' | 'Redis';

const PROBE_TIMEOUT_MS = 2000;
const WATCH_INTERVAL_MS = 1000;

/**
 * Says once when PostgreSQL or Redis goes away and once when it is back, where every worker, round and
 * request that fails meanwhile would each say it (BullMQ's workers once a second). Whoever sees a
 * failure asks explain(): it probes both servers, logs an outage it finds, and then watches it until
 * it ends; the caller logs its own error only when both servers answer.
 */
@Injectable()
export class Outages implements OnApplicationShutdown {
  private readonly logger = new Logger('Outages');
  private readonly down = new Map<Server, number>();
  private checking: Promise<boolean> | undefined;
  private watch: NodeJS.Timeout | undefined;
  private readonly probes: Record<Server, () => Promise<unknown>>;

  constructor(@InjectDataSource() db: DataSource, @Inject(RedisClient) redis: RedisClient) {
    this.probes = { PostgreSQL: () => db.query('SELECT 1'), Redis: () => redis.ping() };
  }

  /** Resolves true when a server is away (the failure is that outage's, and it is logged), false when both answer. */
  explain(): Promise<boolean> {
    if (this.down.size) return Promise.resolve(true);
    this.checking ??= this.check().finally(() => (this.checking = undefined));
    return this.checking;
  }

  onApplicationShutdown(): void {
    clearTimeout(this.watch);
    this.watch = undefined;
  }

  private async check(): Promise<boolean> {
    for (const [server, error] of await this.failing()) {
      this.down.set(server, Date.now());
      this.logger.warn(`${server} cannot be reached (${reasonOf(error)}): what needs it waits and is tried again until ${server} returns`);
    }
    if (this.down.size && !this.watch) this.watchUntilBack();
    return this.down.size > 0;
  }

  private watchUntilBack(): void {
    this.watch = setTimeout(async () => {
      const failing = new Set((await this.failing()).map(([server]) => server));
      for (const [server, since] of this.down) {
        if (failing.has(server)) continue;
        this.down.delete(server);
        // A warning too, so that it stands beside the outage's line at any level that shows that one.
        this.logger.warn(`${server} is back after ${Math.round((Date.now() - since) / 1000)} s`);
      }
      if (this.down.size && this.watch) this.watchUntilBack();
      else this.watch = undefined;
    }, WATCH_INTERVAL_MS);
  }

  private async failing(): Promise<[Server, Error][]> {
    const results = await Promise.all(
      (Object.keys(this.probes) as Server[]).map((server) =>
        withTimeout(this.probes[server](), PROBE_TIMEOUT_MS, `${server} answering`).then(
          () => undefined,
          (error: Error) => [server, error] as [Server, Error],
        ),
      ),
    );
    return results.filter((result) => result !== undefined);
  }
}

/** ioredis's words for a command on a connection that is down say how it was sent, not what happened. */
function reasonOf(error: Error): string {
  return /Stream isn't writeable|Connection is closed/.test(error.message) ? 'connection lost' : error.message;
}
