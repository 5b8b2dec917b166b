import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig, Metrics, RateLimit, RedisClient } from '@app/shared';
import { LRUCache } from 'lru-cache';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { AddressKeys } from './address-keys';
import { limitedClient } from './client-network';
import { ApiError } from './api-error';
import type { ProductScope } from './scope';

/** A lease is at most this share of what the window has left. */
const LEASE_SHARE = 10;

/** Points a process took from the store for a key's window and spends without asking again. */
interface Lease {
  left: number;
  /** What the window had left in the store after this lease was taken. */
  remaining: number;
}

/**
 * Fixed-window limits kept in Redis, so that every replica counts together. While Redis is away each
 * process falls back to counting in its own memory: the service stays up and still limits.
 *
 * Far from the limit a process takes points in leases, a tenth of what the window has left, and spends
 * them without a round trip; the nearer the limit, the smaller the lease, down to one point, so a
 * small limit (under 20 a window) is counted exactly across replicas. No more than the limit ever
 * passes: a lease that reaches past it keeps only the points within it. Points leased and not spent
 * count as spent, so with several replicas a large limit may be reached a few points early.
 */
class Limiter {
  private readonly limiter: RateLimiterRedis;
  private readonly leases = new LRUCache<string, Lease>({ max: 10_000 });
  /** The lease being taken for a key: the key's other requests wait for it rather than ask too. */
  private readonly leasing = new Map<string, Promise<number | null>>();
  private readonly firstLease: number;

  constructor(redis: RedisClient, prefix: string, private readonly limit: RateLimit) {
    const options = { points: limit.points, duration: Math.ceil(limit.durationMs / 1000) };
    this.limiter = new RateLimiterRedis({
      ...options,
      storeClient: redis,
      keyPrefix: prefix,
      insuranceLimiter: new RateLimiterMemory({ ...options, keyPrefix: prefix }),
      // A Redis Cluster queues commands while it is away; the limits count in memory then instead.
      rejectIfRedisNotReady: true,
      // Once a window is used up, this process refuses the key from memory until the window ends.
      inMemoryBlockOnConsumed: limit.points,
    });
    this.firstLease = Math.max(1, Math.floor(limit.points / LEASE_SHARE));
  }

  /** Takes one point; the seconds to wait when there is none left, else null. */
  async take(key: string): Promise<number | null> {
    for (let waiting = this.leasing.get(key); waiting; waiting = this.leasing.get(key)) await waiting.catch(() => null);
    const lease = this.leases.get(key);
    if (lease && lease.left > 0) {
      lease.left--;
      return null;
    }
    const size = lease ? Math.max(1, Math.floor(lease.remaining / LEASE_SHARE)) : this.firstLease;
    const leased = this.lease(key, size).finally(() => this.leasing.delete(key));
    this.leasing.set(key, leased);
    return leased;
  }

  /**
   * Returns a point taken: to this process's lease while the window lasts (the store still counts it,
   * so no replica can go past the limit), else to the store.
   */
  async giveBack(key: string): Promise<void> {
    const lease = this.leases.get(key);
    if (lease) lease.left++;
    else await this.limiter.reward(key, 1);
  }

  /** Takes `size` points from the store and spends one of them. */
  private async lease(key: string, size: number): Promise<number | null> {
    let answer: RateLimiterRes;
    let within = size;
    try {
      answer = await this.limiter.consume(key, size);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      answer = rejection;
      // The store took the lease past the limit and keeps the points within it for us; a key blocked
      // in memory answers with nothing consumed.
      within = Math.max(0, this.limit.points - (answer.consumedPoints - size));
      if (answer.consumedPoints <= this.limit.points) within = 0;
    }
    this.leases.set(key, { left: Math.max(0, within - 1), remaining: answer.remainingPoints }, { ttl: Math.max(1, answer.msBeforeNext) });
    return within > 0 ? null : Math.max(1, Math.ceil(answer.msBeforeNext / 1000));
  }
}

@Injectable()
export class RateLimits {
  private readonly api: Limiter;
  private readonly signupIp: Limiter;
  private readonly signupAddress: Limiter;
  private readonly signupStatus: Limiter;
  private readonly addresses: AddressKeys;

  private readonly rejections;

  constructor(@Inject(RedisClient) redis: RedisClient, @Inject(APP_CONFIG) config: AppConfig, metrics: Metrics) {
    this.rejections = metrics.counter({
      name: 'waitlist_rate_limit_rejections_total',
      help: 'Requests refused with 429 (api, signup, signup_status) and confirmation mails withheld (signup_address), by limit',
      labelNames: ['limit'],
    });
    this.addresses = new AddressKeys(config.ENCRYPTION_KEY);
    const prefix = `${config.QUEUE_PREFIX}:rl`;
    this.api = new Limiter(redis, `${prefix}:api`, config.RATE_LIMIT_API);
    this.signupIp = new Limiter(redis, `${prefix}:signup-ip`, config.RATE_LIMIT_SIGNUP);
    this.signupAddress = new Limiter(redis, `${prefix}:signup-address`, config.RATE_LIMIT_SIGNUP_ADDRESS);
    this.signupStatus = new Limiter(redis, `${prefix}:signup-status`, config.RATE_LIMIT_SIGNUP_STATUS);
  }

  /** API requests per secret key: over the limit is 429 rate_limited with Retry-After. */
  async apiRequestWith(keyId: string): Promise<void> {
    const wait = await this.api.take(keyId);
    if (wait !== null) throw this.rejected('api', `Too many requests with this key; try again in ${wait} s.`, wait);
  }

  /** Public sign-ups per IP (an IPv6 /64 counts as one): over the limit is 429 rate_limited with Retry-After. */
  async signupFromIp(ip: string): Promise<void> {
    const wait = await this.signupIp.take(limitedClient(ip));
    if (wait !== null) throw this.rejected('signup', `Too many sign-ups from this address; try again in ${wait} s.`, wait);
  }

  /** The script-tag form's questions per IP (POST /public/v1/signups/status; an IPv6 /64 counts as one): 429 rate_limited with Retry-After. */
  async signupStatusFromIp(ip: string): Promise<void> {
    const wait = await this.signupStatus.take(limitedClient(ip));
    if (wait !== null) throw this.rejected('signup_status', `Too many questions from this address; try again in ${wait} s.`, wait);
  }

  /** Confirmation mails per mailbox of a product's list: false when it has had its share for now. */
  async confirmationMailFor(scope: ProductScope, mailbox: string): Promise<boolean> {
    if ((await this.signupAddress.take(this.mailboxKey(scope, mailbox))) === null) return true;
    this.rejections.inc({ limit: 'signup_address' });
    return false;
  }

  /** A confirmation mail granted by confirmationMailFor that did not go out after all. */
  async returnConfirmationMail(scope: ProductScope, mailbox: string): Promise<void> {
    await this.signupAddress.giveBack(this.mailboxKey(scope, mailbox));
  }

  private mailboxKey(scope: ProductScope, mailbox: string): string {
    return `${scope.productId}:${scope.mode}:${this.addresses.of(mailbox)}`;
  }

  private rejected(limit: 'api' | 'signup' | 'signup_status', message: string, seconds: number): ApiError {
    this.rejections.inc({ limit });
    return new ApiError('rate_limited', message, { retryAfterSeconds: seconds });
  }
}
