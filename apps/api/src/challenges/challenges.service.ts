import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { APP_CONFIG, AppConfig, ChallengeMode, Clock, countOfDay, derivedKeys, Metrics, Product, RedisClient, refusedCountType } from '@app/shared';
import { createChallenge, extractParams, verifySolution } from 'altcha-lib/v1';
import { LRUCache } from 'lru-cache';
import { createHash } from 'node:crypto';
import { DataSource } from 'typeorm';
import { ApiError } from '../common/api-error';
import type { ProductScope } from '../common/scope';
import { KeysService } from '../keys/keys.service';
import { Challenge, SOLUTION } from './challenges.dto';

/** How long a challenge may be solved and used: a long form filled after the form solved it in the background. */
export const CHALLENGE_TTL_MS = 30 * 60 * 1000;
/** How long this process trusts a product's challenge settings it read: the bound on a change taking effect. */
const SETTINGS_TTL_MS = 2000;

interface Settings {
  mode: ChallengeMode;
  difficulty: number;
}

/**
 * The sign-up challenge: an ALTCHA proof of work (altcha-lib), issued and verified here, so that no
 * third party sees a visitor. A challenge is signed (HMAC under a key derived from ENCRYPTION_KEY's first
 * key) with its expiry and (a hash of) its product and mode in the salt, so issuing stores nothing; a solution is
 * taken once across every api, by a Redis SET NX that lives as long as the challenge could.
 */
@Injectable()
export class ChallengesService {
  private readonly logger = new Logger(ChallengesService.name);
  private readonly hmacKey: string;
  private readonly prefix: string;
  private readonly settings = new LRUCache<string, Promise<Settings>>({ max: 10_000, ttl: SETTINGS_TTL_MS });
  /** Solutions taken while Redis was away: replays are then refused by this process alone. */
  private readonly takenHere = new LRUCache<string, true>({ max: 100_000, ttl: CHALLENGE_TTL_MS });
  private readonly refused;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly keys: KeysService,
    @Inject(RedisClient) private readonly redis: RedisClient,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly clock: Clock,
    metrics: Metrics,
  ) {
    this.hmacKey = derivedKeys(config.ENCRYPTION_KEY[0], 'waitlist sign-up challenges')[0].toString('hex');
    this.prefix = `${config.QUEUE_PREFIX}:challenge:`;
    this.refused = metrics.signupsRefused();
  }

  /** A new challenge for the product and mode of a publishable key, at the product's difficulty. */
  async issue(key: string): Promise<Challenge> {
    const scope = await this.keys.authenticate(key, 'publishable');
    if (!scope) throw new ApiError('unauthorized', 'Unknown or revoked publishable key.', { param: 'key' });
    const { difficulty } = await this.settingsOf(scope.productId);
    const expires = new Date(this.clock.now().getTime() + CHALLENGE_TTL_MS);
    const challenge = await createChallenge({ hmacKey: this.hmacKey, maxnumber: difficulty, expires, params: { for: forOf(scope) } });
    return { ...challenge, algorithm: 'SHA-256', maxnumber: difficulty };
  }

  /** The challenge mode of a product (off, invisible, required), as the forms show it. */
  async modeOf(productId: string): Promise<ChallengeMode> {
    return (await this.settingsOf(productId)).mode;
  }

  /**
   * A sign-up of a product whose challenge is on passes only with a solution of a challenge issued for
   * its product and mode, not expired, and never taken before; otherwise 400 challenge_failed, the same
   * whatever the address, and nothing is written.
   */
  /** Whether a sign-up may go on: the product's challenge is off, or this is a right, unexpired, unused solution (taken now). */
  async passes(scope: ProductScope, solution: string | undefined): Promise<boolean> {
    if ((await this.settingsOf(scope.productId)).mode === 'off') return true;
    const challenge = await this.solved(scope, solution);
    return challenge !== null && (await this.takeOnce(challenge));
  }

  /** A sign-up without a right solution: counted (the metric, the overview's day) and refused. */
  async refuse(scope: ProductScope): Promise<never> {
    this.refused.inc({ reason: 'challenge' });
    await countOfDay(this.db, scope, refusedCountType('challenge'), this.clock.now(), 1);
    throw new ApiError('challenge_failed', 'The sign-up challenge is missing, wrong, expired or used already; solve a new one.', { param: 'challenge' });
  }

  /** The solved challenge's hash and expiry, if the solution is right for this product and mode and not expired. */
  private async solved(scope: ProductScope, solution: string | undefined): Promise<{ hash: string; expiresMs: number } | null> {
    if (!solution) return null;
    let decoded: unknown;
    try {
      decoded = JSON.parse(Buffer.from(solution, 'base64').toString('utf8'));
    } catch {
      return null;
    }
    const payload = SOLUTION.safeParse(decoded);
    if (!payload.success) return null;
    const params = extractParams(payload.data);
    const expiresMs = Number(params.expires) * 1000;
    if (params.for !== forOf(scope) || !(expiresMs > this.clock.now().getTime())) return null;
    // The expiry was checked above against the service's clock.
    return (await verifySolution(payload.data, this.hmacKey, false)) ? { hash: payload.data.challenge, expiresMs } : null;
  }

  /** True for the first use of a challenge across every api (while Redis is away, of this process). */
  private async takeOnce({ hash, expiresMs }: { hash: string; expiresMs: number }): Promise<boolean> {
    const ttl = Math.max(1, expiresMs - this.clock.now().getTime());
    try {
      return (await this.redis.set(this.prefix + hash, '1', 'PX', ttl, 'NX')) === 'OK';
    } catch (error) {
      this.logger.warn(`A sign-up challenge was taken in this process only: ${(error as Error).message}`);
      if (this.takenHere.has(hash)) return false;
      this.takenHere.set(hash, true, { ttl });
      return true;
    }
  }

  private settingsOf(productId: string): Promise<Settings> {
    let settings = this.settings.get(productId);
    if (!settings) {
      settings = this.db
        .getRepository(Product)
        .findOne({ where: { id: productId }, select: { id: true, challengeMode: true, challengeDifficulty: true } })
        .then((product) => ({ mode: product?.challengeMode ?? 'off', difficulty: product?.challengeDifficulty ?? 50_000 }));
      settings.catch(() => this.settings.delete(productId));
      this.settings.set(productId, settings);
    }
    return settings;
  }
}

/** What a challenge is for: a product and mode (no person), hashed so that the public challenge does not show the product's id. */
const forOf = (scope: ProductScope) => createHash('sha256').update(`${scope.productId}:${scope.mode}`).digest('base64url').slice(0, 22);
