import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/shared';
import { LRUCache } from 'lru-cache';
import createSubscriber, { Subscriber } from 'pg-listen';
import type { KeyKind } from '@app/shared';
import type { KeyScope } from '../common/scope';

/** The PostgreSQL channel a revocation is announced on, with the key's hash in hex (KeysService). */
export const KEY_REVOKED_CHANNEL = 'waitlist_key_revoked';

/**
 * The longest this process trusts a key it has checked: the bound on a revocation it was not told of
 * (docs/decisions/api.md, "API keys are checked from memory").
 */
const TTL_MS = 10_000;

export interface CachedKey {
  scope: KeyScope;
  kind: KeyKind;
  /** When this process last recorded the key's use (epoch ms). */
  touchedAt: number;
}

/**
 * Keys checked lately, by hash, so that a request costs no key lookup in PostgreSQL. A revocation
 * anywhere is announced with NOTIFY and forgotten here at once; the cache is only trusted while its
 * LISTEN connection is up (it starts with the first key checked, so the CLI never opens it), and
 * entries never outlive TTL_MS.
 */
@Injectable()
export class KeyCache implements OnApplicationShutdown {
  private readonly logger = new Logger(KeyCache.name);
  private readonly keys = new LRUCache<string, CachedKey>({ max: 10_000, ttl: TTL_MS });
  private subscriber?: Subscriber;
  private listening = false;
  /** Counts revocations heard and lost connections, so that a lookup that raced one is not kept. */
  private generation = 0;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  get(hash: string): CachedKey | undefined {
    this.listen();
    return this.listening ? this.keys.get(hash) : undefined;
  }

  /** The generation to hand to `set` after a lookup that started now. */
  get version(): number {
    return this.generation;
  }

  /** Keeps a key looked up since `version`, unless a revocation or a lost connection came in between. */
  set(hash: string, key: CachedKey, version: number): void {
    if (this.listening && version === this.generation) this.keys.set(hash, key);
  }

  forget(hash: string): void {
    this.generation++;
    this.keys.delete(hash);
  }

  private listen(): void {
    if (this.subscriber) return;
    const subscriber = createSubscriber({ connectionString: this.config.DATABASE_URL }, { parse: (payload) => payload, retryTimeout: 0, paranoidChecking: 5_000 });
    this.subscriber = subscriber;
    subscriber.notifications.on(KEY_REVOKED_CHANNEL, (hash: string) => this.forget(hash));
    const trust = () => {
      this.keys.clear();
      this.listening = true;
    };
    const distrust = () => {
      this.generation++;
      this.listening = false;
    };
    // pg-listen reconnects by itself and listens again before it says 'connected'.
    subscriber.events.on('reconnect', distrust);
    subscriber.events.on('error', (error) => {
      distrust();
      this.logger.warn(`Key revocations from other processes are not heard: ${error.message}`);
    });
    subscriber
      .connect()
      .then(() => subscriber.listenTo(KEY_REVOKED_CHANNEL))
      .then(() => {
        trust();
        subscriber.events.on('connected', trust);
      })
      .catch((error: Error) => {
        // The next key checked tries again.
        this.subscriber = undefined;
        void subscriber.close().catch(() => undefined);
        this.logger.warn(`Key revocations from other processes are not heard: ${error.message}`);
      });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.subscriber?.close().catch(() => undefined);
  }
}
