import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  APP_CONFIG,
  AppConfig,
  Clock,
  DashboardSession,
  DashboardUser,
  hashToken,
  newId,
  newToken,
  normalizeEmail,
  RedisClient,
  SecretBox,
  TeamMember,
} from '@app/shared';
import { timingSafeEqual } from 'node:crypto';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { DataSource, LessThan, MoreThan } from 'typeorm';
import { AddressKeys } from '../../common/address-keys';
import { ApiError } from '../../common/api-error';
import { limitedClient } from '../../common/client-network';
import { hashPassword, verifyPassword } from './passwords';
import type { Notice } from './notice';

export const SESSION_MS = 12 * 3_600_000;
/** Failed logins allowed per address and per IP in 15 minutes. */
const LOGIN_ATTEMPTS = 10;
/** A point is given back only while its window has this long left, more than a round trip to Redis. */
const GIVE_BACK_MARGIN_MS = 1000;

/** A login attempt's point, taken from a key's window that ends at `windowEndsAt` (epoch ms). */
interface TakenPoint {
  key: string;
  windowEndsAt: number;
}

export interface DashboardIdentity {
  user: DashboardUser;
  session: DashboardSession;
  csrfToken: string;
  productIds: string[];
  /** The development inbox is on (SMTP_URL unset), so the dashboard links it. */
  devInbox: boolean;
}

/** Dashboard users, their teams and their sessions. */
@Injectable()
export class DashboardAuthService {
  private readonly failures: RateLimiterRedis;
  private readonly devInbox: boolean;
  private readonly notices: SecretBox;
  private readonly addresses: AddressKeys;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(RedisClient) redis: RedisClient,
    private readonly clock: Clock,
  ) {
    const options = { points: LOGIN_ATTEMPTS, duration: 15 * 60, keyPrefix: `${config.QUEUE_PREFIX}:rl:login` };
    this.devInbox = !config.SMTP_URL;
    this.notices = new SecretBox(config.ENCRYPTION_KEY, 'waitlist dashboard notices');
    this.addresses = new AddressKeys(config.ENCRYPTION_KEY);
    this.failures = new RateLimiterRedis({ ...options, storeClient: redis, insuranceLimiter: new RateLimiterMemory(options), rejectIfRedisNotReady: true });
  }

  /**
   * A dashboard user in a product's team, or in none (an operator may have no team). An existing user
   * joins the team and keeps the password they have; `operator` makes them an operator, never the reverse.
   */
  async createUser(
    email: string,
    password: string,
    productId: string | null,
    { operator = false } = {},
  ): Promise<{ id: string; created: boolean; operator: boolean }> {
    const address = normalizeEmail(email);
    if (!address) throw new Error('--email must be a valid email address.');
    if (password.length < 12) throw new Error('--password must have at least 12 characters.');
    return this.db.transaction(async (manager) => {
      let user = await manager.getRepository(DashboardUser).findOneBy({ email: address });
      const created = !user;
      if (!user) {
        user = { id: newId('usr'), email: address, passwordHash: await hashPassword(password), createdAt: this.clock.now(), operator };
        await manager.insert(DashboardUser, user);
      } else if (operator && !user.operator) {
        await manager.update(DashboardUser, { id: user.id }, { operator: true });
      }
      if (productId !== null) await manager.createQueryBuilder().insert().into(TeamMember).values({ userId: user.id, productId }).orIgnore().execute();
      return { id: user.id, created, operator: operator || user.operator };
    });
  }

  /**
   * A new session's cookie value, or 401; failures count per address and per IP (429 past the limit).
   * Each attempt takes its point before the password is checked and gives it back unless the password
   * was wrong, so guesses sent in parallel are counted as they arrive, not when their checks end.
   */
  async logIn(email: string, password: string, ip: string): Promise<string> {
    const address = normalizeEmail(email) ?? '';
    const taken = await this.takeAttempt([`ip:${limitedClient(ip)}`, `email:${this.addresses.of(address)}`]);
    const user = await this.passwordHolder(address, password).catch(async (error: unknown) => {
      await this.giveBack(taken);
      throw error;
    });
    if (!user) throw new ApiError('unauthorized', 'Wrong email or password.');
    await this.giveBack(taken);
    const token = newToken();
    const now = this.clock.now();
    await this.db.getRepository(DashboardSession).delete({ expiresAt: LessThan(now) });
    await this.db.getRepository(DashboardSession).insert({
      hash: hashToken(token),
      userId: user.id,
      csrfToken: newToken(),
      createdAt: now,
      expiresAt: new Date(now.getTime() + SESSION_MS),
    });
    return token;
  }

  /** The user with this address and password, or null. */
  private async passwordHolder(address: string, password: string): Promise<DashboardUser | null> {
    const user = await this.db.getRepository(DashboardUser).findOneBy({ email: address });
    // Without a user, a hash is still checked, so the answer takes as long either way.
    const ok = await verifyPassword(password, user?.passwordHash ?? DUMMY_HASH);
    return user && ok ? user : null;
  }

  /** Takes a point from each key, or none and 429 when any key has none left. */
  private async takeAttempt(keys: string[]): Promise<TakenPoint[]> {
    const answers = await Promise.allSettled(keys.map((key) => this.failures.consume(key)));
    const taken = answers.flatMap((answer, i) =>
      answer.status === 'fulfilled' ? [{ key: keys[i], windowEndsAt: Date.now() + answer.value.msBeforeNext }] : [],
    );
    const refusals = answers.flatMap((answer) => (answer.status === 'rejected' ? [answer.reason as unknown] : []));
    if (!refusals.length) return taken;
    // An attempt refused by one key is no guess at all, so the other keys get their points back.
    await this.giveBack(taken);
    const error = refusals.find((reason) => !(reason instanceof RateLimiterRes));
    if (error) throw error;
    const seconds = Math.max(1, ...refusals.map((refusal) => Math.ceil((refusal as RateLimiterRes).msBeforeNext / 1000)));
    throw new ApiError('rate_limited', `Too many failed logins; try again in ${seconds} s.`, { retryAfterSeconds: seconds });
  }

  /**
   * Returns points to the windows they were taken from. Once a window has ended, its key would come
   * back as a new window already one point in credit, so a point from a window about to end is kept.
   */
  private async giveBack(taken: TakenPoint[]): Promise<void> {
    const open = taken.filter(({ windowEndsAt }) => windowEndsAt - Date.now() > GIVE_BACK_MARGIN_MS);
    await Promise.all(open.map(({ key }) => this.failures.reward(key, 1)));
  }

  async identify(token: string | undefined): Promise<DashboardIdentity | null> {
    if (!token) return null;
    const session = await this.db.getRepository(DashboardSession).findOneBy({ hash: hashToken(token), expiresAt: MoreThan(this.clock.now()) });
    if (!session) return null;
    const user = await this.db.getRepository(DashboardUser).findOneByOrFail({ id: session.userId });
    const teams = await this.db.getRepository(TeamMember).findBy({ userId: user.id });
    return { user, session, csrfToken: session.csrfToken, productIds: teams.map((team) => team.productId), devInbox: this.devInbox };
  }

  /**
   * Keeps what the page at `path` shows once after an action (post/redirect/get), with the session and
   * sealed with ENCRYPTION_KEY, since it may hold a new secret. A newer notice replaces one not yet shown.
   */
  async keepNotice(identity: DashboardIdentity, path: string, notice: Notice): Promise<void> {
    const flash = this.notices.seal(JSON.stringify({ path, notice }));
    await this.db.getRepository(DashboardSession).update({ hash: identity.session.hash }, { flash });
  }

  /** The notice kept for `path`, deleted as it is taken: only the request that deletes it shows it. */
  async takeNotice(identity: DashboardIdentity, path: string): Promise<Notice | undefined> {
    const { hash, flash } = identity.session;
    if (!flash) return undefined;
    let kept: { path: string; notice: Notice } | undefined;
    try {
      kept = JSON.parse(this.notices.open(flash));
    } catch {
      // Sealed under an ENCRYPTION_KEY since replaced: it can never be shown, so it goes.
    }
    if (kept && kept.path !== path) return undefined;
    const [, taken]: [unknown[], number] = await this.db.query('UPDATE dashboard_sessions SET flash = NULL WHERE hash = $1 AND flash = $2', [hash, flash]);
    return taken ? kept?.notice : undefined;
  }

  async logOut(token: string): Promise<void> {
    await this.db.getRepository(DashboardSession).delete({ hash: hashToken(token) });
  }

  /**
   * True when a form carries its token. An empty token never matches, not even an empty one: a missing
   * cookie reads as '' and a forged form can post an empty field.
   */
  static csrfMatches(expected: string, given: unknown): boolean {
    if (typeof given !== 'string' || !expected || !given) return false;
    const a = Buffer.from(expected);
    const b = Buffer.from(given);
    return a.length === b.length && timingSafeEqual(a, b);
  }
}

const DUMMY_HASH = 'scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';
