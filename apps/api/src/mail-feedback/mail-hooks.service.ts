import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, AppConfig, Clock, hashTokenHex, MailFeedback, RedisClient } from '@app/shared';
import { ApiError } from '../common/api-error';
import { MailFeedbackService } from './mail-feedback.service';
import { HookCall, HookProvider, MailHook, unauthorized } from './mail-hook';
import { mailgunHook } from './mailgun';
import { postmarkHook } from './postmark';
import { resendHook } from './resend';
import { sendgridHook } from './sendgrid';
import { sesHook } from './ses';

/**
 * How long a call's events (and Mailgun's tokens) are remembered: longer than any provider retries a call
 * (Resend about a day and a half, SendGrid a day) and than Mailgun's timestamps are taken.
 */
export const REPLAY_MEMORY_SECONDS = 3 * 24 * 3600;

/**
 * The mail providers' hooks: each verifies its call, then the bounces and complaints it reports are
 * applied, those of a call seen before only once. Which events were applied is remembered in Redis, in
 * front of apply()'s own once-per-event rule in PostgreSQL: while Redis is away the calls are still
 * taken and that rule alone holds.
 */
@Injectable()
export class MailHooksService {
  private readonly logger = new Logger('MailHooks');
  private readonly hooks: Map<string, MailHook>;
  private readonly prefix: string;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(RedisClient) private readonly redis: RedisClient,
    clock: Clock,
    private readonly feedback: MailFeedbackService,
  ) {
    const hooks = [sesHook(config), postmarkHook(config), resendHook(config), sendgridHook(config), mailgunHook(config, clock)];
    this.hooks = new Map(hooks.filter((hook) => hook !== null).map((hook) => [hook.provider, hook]));
    this.prefix = `${config.QUEUE_PREFIX}:mail-hook:`;
  }

  /** 404 for a provider without a hook (unknown, or its settings unset); 401 for a call it does not trust. */
  async receive(provider: string, call: HookCall): Promise<void> {
    const hook = this.hooks.get(provider);
    if (!hook) throw new ApiError('not_found', 'No such mail hook: the provider is unknown, or its settings are not set.');
    const { feedback, onceKey } = await hook.receive(call);
    const once = onceKey === undefined ? [] : [this.key(hook.provider, 'once', onceKey)];
    if (once.length && (await this.seen(once))[0]) throw unauthorized('This call was received before (its token was used): a replay is refused.');
    const keys = feedback.map((item) => this.key(hook.provider, 'event', item.eventId));
    const seen = await this.seen(keys);
    const fresh: MailFeedback[] = feedback.filter((_, index) => !seen[index]);
    if (fresh.length) await this.feedback.apply(fresh);
    await this.remember([...keys, ...once]);
  }

  private key(provider: HookProvider, kind: 'event' | 'once', id: string): string {
    return `${this.prefix}${provider}:${kind}:${hashTokenHex(id)}`;
  }

  private async seen(keys: string[]): Promise<boolean[]> {
    try {
      // One command per key: a Redis Cluster takes no multi-key command across slots.
      return await Promise.all(keys.map(async (key) => (await this.redis.exists(key)) === 1));
    } catch (error) {
      this.logger.warn(`Which mail events were applied could not be read (${(error as Error).message}); each is applied, once by its id.`);
      return keys.map(() => false);
    }
  }

  private async remember(keys: string[]): Promise<void> {
    try {
      await Promise.all(keys.map((key) => this.redis.set(key, '1', 'EX', REPLAY_MEMORY_SECONDS)));
    } catch (error) {
      this.logger.warn(`Which mail events were applied could not be noted (${(error as Error).message}).`);
    }
  }
}
