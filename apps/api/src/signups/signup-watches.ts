import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, AppConfig, hashTokenHex, RedisClient } from '@app/shared';

/** How long after a sign-up its page may still learn that the address was confirmed. */
export const WATCH_SECONDS = 30 * 60;

/**
 * A sign-up from the script-tag form brings a random secret of its page (`watch`), so that the page
 * can show the place once the person confirms from the mail, without knowing the address's link.
 * Every sign-up with a watch writes one key, empty when it mailed no confirmation (an address further
 * along, or over its mail limit): what the page then learns, and what the sign-up costs, tells it
 * nothing about the address. Kept in Redis for WATCH_SECONDS; when Redis is away the page keeps
 * saying "check your inbox", and the sign-up is not refused for it.
 */
@Injectable()
export class SignupWatches {
  private readonly logger = new Logger(SignupWatches.name);
  private readonly prefix: string;

  constructor(
    @Inject(RedisClient) private readonly redis: RedisClient,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.prefix = `${config.QUEUE_PREFIX}:watch:`;
  }

  async note(watch: string, entryId: string | null): Promise<void> {
    try {
      await this.redis.set(this.key(watch), entryId ?? '', 'EX', WATCH_SECONDS);
    } catch (error) {
      this.logger.warn(`A sign-up's watch was not kept: ${(error as Error).message}`);
    }
  }

  /** The entry a watch saw mailed, if any and the page may still ask; none while Redis is away. */
  async entryOf(watch: string): Promise<string | null> {
    try {
      return (await this.redis.get(this.key(watch))) || null;
    } catch (error) {
      this.logger.warn(`A sign-up's watch could not be read: ${(error as Error).message}`);
      return null;
    }
  }

  private key(watch: string): string {
    return this.prefix + hashTokenHex(watch);
  }
}
