import { createHash } from 'node:crypto';
import { DomainPaceConfig, paceOf } from '../config/mail-pace';
import { RedisConnection } from './redis';

/**
 * One place in the domain's window, or none: the count of the window goes up only while it is under
 * the limit, in one step, so that any number of mailers share the windows exactly.
 */
const TAKE = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
if n > tonumber(ARGV[1]) then
  redis.call('DECR', KEYS[1])
  return 0
end
return 1`;

/**
 * MAIL_DOMAIN_PACE across every mailer process: a count per receiving domain per fixed window in Redis
 * (windows start at multiples of their length since the epoch, by the caller's clock). A receiving
 * domain appears in a key only as a hash. Without MAIL_DOMAIN_PACE nothing is asked of Redis.
 */
export class DomainPace {
  constructor(
    private readonly redis: RedisConnection,
    private readonly prefix: string,
    private readonly config: DomainPaceConfig | undefined,
  ) {}

  /** Takes a place for a mail to `domain` at `now` (epoch ms): 0 when taken, else the ms until its next window opens. */
  async take(domain: string, now: number): Promise<number> {
    const pace = paceOf(this.config, domain);
    if (!pace) return 0;
    const windowStart = now - (now % pace.durationMs);
    const key = `${this.prefix}:pace:${createHash('sha256').update(domain.toLowerCase()).digest('hex').slice(0, 20)}:${pace.durationMs}:${windowStart}`;
    // Kept a window longer than it lasts, so that mailers whose clocks differ a little still share it.
    const taken = await this.redis.eval(TAKE, 1, key, pace.points, 2 * pace.durationMs);
    return taken === 1 ? 0 : windowStart + pace.durationMs - now;
  }
}
