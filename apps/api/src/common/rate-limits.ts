import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig, RateLimit, RedisClient } from '@app/shared';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { ApiError } from './api-error';

/**
 * Fixed-window limits kept in Redis, so that every replica counts together. While Redis is away each
 * process falls back to counting in its own memory: the service stays up and still limits.
 */
class Limiter {
  private readonly limiter: RateLimiterRedis;

  constructor(redis: RedisClient, prefix: string, limit: RateLimit) {
    const options = { points: limit.points, duration: Math.ceil(limit.durationMs / 1000) };
    this.limiter = new RateLimiterRedis({
      ...options,
      storeClient: redis,
      keyPrefix: prefix,
      insuranceLimiter: new RateLimiterMemory({ ...options, keyPrefix: prefix }),
    });
  }

  /** Takes one point; the seconds to wait when there is none left, else null. */
  async take(key: string): Promise<number | null> {
    try {
      await this.limiter.consume(key);
      return null;
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) return Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      throw rejection;
    }
  }
}

@Injectable()
export class RateLimits {
  private readonly api: Limiter;
  private readonly signupIp: Limiter;
  private readonly signupAddress: Limiter;

  constructor(redis: RedisClient, @Inject(APP_CONFIG) config: AppConfig) {
    const prefix = `${config.QUEUE_PREFIX}:rl`;
    this.api = new Limiter(redis, `${prefix}:api`, config.RATE_LIMIT_API);
    this.signupIp = new Limiter(redis, `${prefix}:signup-ip`, config.RATE_LIMIT_SIGNUP);
    this.signupAddress = new Limiter(redis, `${prefix}:signup-address`, config.RATE_LIMIT_SIGNUP_ADDRESS);
  }

  /** API requests per secret key: over the limit is 429 rate_limited with Retry-After. */
  async apiRequestWith(keyId: string): Promise<void> {
    const wait = await this.api.take(keyId);
    if (wait !== null) throw rateLimited(`Too many requests with this key; try again in ${wait} s.`, wait);
  }

  /** Public sign-ups per IP: over the limit is 429 rate_limited with Retry-After. */
  async signupFromIp(ip: string): Promise<void> {
    const wait = await this.signupIp.take(ip);
    if (wait !== null) throw rateLimited(`Too many sign-ups from this address; try again in ${wait} s.`, wait);
  }

  /** Confirmation mails per address: false when this address has had its share for now. */
  async confirmationMailFor(scopeAndEmail: string): Promise<boolean> {
    return (await this.signupAddress.take(scopeAndEmail)) === null;
  }
}

const rateLimited = (message: string, seconds: number) => new ApiError('rate_limited', message, { retryAfterSeconds: seconds });
