import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/shared';
import { Client } from 'pg';

/** Any fixed number: the first half of the advisory lock of a release run (the others' are 727_001 to 727_003). */
const RUN_LOCK = 727_004;
/**
 * The server asks a silent client after 30 s, then every 10 s, and ends the session after 3 unanswered:
 * a host that vanished without closing its connection loses its runs' locks within about a minute.
 */
const KEEPALIVES = 'SET tcp_keepalives_idle = 30; SET tcp_keepalives_interval = 10; SET tcp_keepalives_count = 3';

/**
 * The locks of the release runs this process is running, held on a PostgreSQL session of its own for as
 * long as each run lasts. A session lock ends with its session: when the process dies, its connection
 * closes and its runs' locks are free, so a run nobody holds the lock of has lost its process, and
 * whoever takes the lock takes the run over. One session for every run of the process, a connection of
 * its own; should it break, the next lock opens another.
 */
@Injectable()
export class RunLocks implements OnApplicationShutdown {
  private session?: Promise<Client>;
  /** Session locks are reentrant: this process must not take over a run it is running itself. */
  private readonly held = new Set<string>();

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** Takes the run's lock; false when a process holds it (this one or another). */
  async take(runId: string): Promise<boolean> {
    if (this.held.has(runId)) return false;
    const [{ locked }] = await this.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS locked', [RUN_LOCK, runId]);
    if (locked) this.held.add(runId);
    return locked;
  }

  /** Gives the run's lock back; a lock whose session broke went with it. */
  async release(runId: string): Promise<void> {
    if (!this.held.delete(runId)) return;
    await this.query('SELECT pg_advisory_unlock($1, hashtext($2))', [RUN_LOCK, runId]).catch(() => undefined);
  }

  async onApplicationShutdown(): Promise<void> {
    const session = this.session;
    this.session = undefined;
    this.held.clear();
    await (await session?.catch(() => undefined))?.end().catch(() => undefined);
  }

  private async query<T>(sql: string, parameters: unknown[]): Promise<T[]> {
    this.session ??= this.open();
    const session = this.session;
    try {
      return (await (await session).query(sql, parameters)).rows as T[];
    } catch (error) {
      // The session is ended, so that whatever locks it may still hold end with it: forget them, and
      // open a new one next time.
      if (this.session === session) {
        this.session = undefined;
        this.held.clear();
        await (await session.catch(() => undefined))?.end().catch(() => undefined);
      }
      throw error;
    }
  }

  /** A connection of its own, not the pool's: a pooled one would go back to the pool with its locks. */
  private async open(): Promise<Client> {
    const client = new Client({ connectionString: this.config.DATABASE_URL, keepAlive: true });
    // A session that breaks while idle says so at its next query; the event alone must not end the process.
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query(KEEPALIVES);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    return client;
  }
}
