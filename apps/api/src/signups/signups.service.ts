import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  ApiKey,
  APP_CONFIG,
  AppConfig,
  canonicalEmail,
  Clock,
  eventEnvelope,
  EntryRecord,
  EntryToken,
  hashToken,
  JobData,
  Milestone,
  newId,
  newReferralCode,
  normalizeEmail,
  Product,
  QueueName,
  recordEvent,
  toEntry,
  TokenPurpose,
} from '@app/shared';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource, EntityManager, IsNull } from 'typeorm';
import type { KeyScope } from '../common/scope';
import { KeysService } from '../keys/keys.service';
import { ApiError } from '../common/api-error';
import { eraseTraces } from '../entries/erasure';
import { suppress, suppressionHash } from '../entries/suppressions';
import { RateLimits } from '../common/rate-limits';
import type { Leader } from '../leaderboard/leaderboard.dto';
import { LeaderboardService } from '../leaderboard/leaderboard.service';
import { LineService } from '../line/line.service';
import { ReferralLists } from '../referrals/referral-lists';
import { ReferralsService } from '../referrals/referrals.service';
import { SignupPace } from './signup-pace';

type ConfirmationJob = JobData<QueueName.Mail, 'confirmation'>;

export interface SignupInput {
  key: string;
  email?: unknown;
  ref?: string;
  ip: string;
  /** The request's X-Request-Id, carried to the confirmation mail's lines in the mailer's log. */
  requestId: string;
}

/** What a hosted confirm page shows about the entry behind its link. */
/** What the person's friends did for its place: credited referrals, the places they gave, and those still being checked. */
export interface Friends {
  credited: number;
  places: number;
  beingChecked: number;
}

/** What every state of the page shows: the product, and its my-data page (null without a publishable key in use). */
interface StatusFrame {
  productName: string;
  myDataLink: string | null;
}

export type ConfirmStatus =
  | ({ state: 'pending' } & StatusFrame)
  | ({
      state: 'confirmed';
      place: number;
      estimatedWaitDays: number | null;
      referralLink: string | null;
      friends: Friends;
      leaderboard: Leader[] | null;
      milestones: Milestone[];
    } & StatusFrame)
  | ({ state: 'invited' } & StatusFrame);

@Injectable()
export class SignupsService {
  private readonly pace = new SignupPace();

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly keys: KeysService,
    private readonly line: LineService,
    private readonly referrals: ReferralsService,
    private readonly referralLists: ReferralLists,
    private readonly leaderboard: LeaderboardService,
    private readonly limits: RateLimits,
    private readonly clock: Clock,
  ) {}

  async productOfPublishableKey(key: string): Promise<{ scope: KeyScope; product: Product }> {
    const scope = await this.scopeOfPublishableKey(key);
    const product = await this.db.getRepository(Product).findOneBy({ id: scope.productId });
    if (!product) throw unknownKey();
    return { scope, product };
  }

  /**
   * A sign-up. The answer is the same whether the address is new, pending or further along, so it
   * tells nobody which addresses are on the list; nor does its time: every path is the same one
   * statement (`write`), and one that wrote less than a new address waits what a new one takes more
   * (`SignupPace`). A new address becomes a pending entry; a pending one gets a new confirmation mail
   * (within its per-address limit); others change nothing.
   */
  async signUp(input: SignupInput): Promise<KeyScope> {
    const started = performance.now();
    const scope = await this.scopeOfPublishableKey(input.key);
    const email = normalizeEmail(input.email);
    if (!email) throw new ApiError('invalid_email', 'Enter a valid email address.', { param: 'email' });
    await this.limits.signupFromIp(input.ip);
    // Counted per mailbox, so that variants of one address (flood+1@, f.l.o.o.d@gmail.com) share one limit.
    // Taken before it is known whether the address is new, so that every sign-up is one statement, and
    // given back when no mail goes out after all.
    const mailbox = canonicalEmail(email);
    const mailDue = await this.limits.confirmationMailFor(scope, mailbox);
    const { created, mailed } = await this.write(scope, email, input.ref, mailDue, input.requestId);
    if (mailDue && !mailed) await this.limits.returnConfirmationMail(scope, mailbox);
    const write = created ? 'created' : mailed ? 'mailed' : 'unchanged';
    this.pace.note(write, performance.now() - started);
    const padding = this.pace.padding(write);
    if (padding > 0) {
      const waited = performance.now();
      await sleep(padding);
      this.pace.noteWait(padding, performance.now() - waited);
    }
    return scope;
  }

  /**
   * One statement for every sign-up, committed without another round trip: the day's count (and, at
   * the commit, the product's count of pending entries) is a row that the sign-ups of the product on
   * this connection's stripe share, and its lock is held until the commit. A new address gets its
   * entry, its referral when it came through a referral link (pending until it confirms), its entry.created event (the rows recordEvents writes: the event, its fan-out job, the day's
   * count) and its confirmation mail's outbox row (an address on the suppression list comes back as its own
   * sign-up alone: the link's referral is ignored, so no referral brings it back nor earns credit); a pending one, when a mail is due, a new createdAt
   * and the mail's outbox row (the update waits for a concurrent confirmation and then finds the entry
   * no longer pending); any other, nothing. Whether it created an entry and wrote a confirmation mail.
   */
  private async write(
    scope: KeyScope,
    email: string,
    ref: string | undefined,
    mailDue: boolean,
    httpRequestId: string,
  ): Promise<{ created: boolean; mailed: boolean }> {
    const now = this.clock.now();
    const id = newId('ent');
    const event = eventEnvelope('entry.created', scope, toEntry(newEntry(id, email, now)), now);
    const [written]: { created: boolean; mailed: boolean }[] = await this.db.query(
      `WITH entry AS (
         INSERT INTO entries (id, product_id, mode, email, state, created_at, referred_by)
         VALUES ($1, $2, $3, $4, 'pending', $5,
                 (SELECT id FROM entries WHERE product_id = $2 AND mode = $3 AND referral_code = $6
                    AND NOT EXISTS (SELECT FROM suppressed_addresses WHERE product_id = $2 AND mode = $3 AND email_hash = $16)))
         ON CONFLICT (product_id, mode, email) DO NOTHING RETURNING id, referred_by
       ), referral AS (
         INSERT INTO referrals (id, product_id, mode, referrer_id, referred_id, state, reasons, created_at)
         SELECT $15, $2, $3, referred_by, id, 'pending', '{not_confirmed}', $5 FROM entry WHERE referred_by IS NOT NULL
       ), known AS (
         UPDATE entries SET created_at = CASE WHEN state = 'pending' AND $9::boolean THEN $5 ELSE created_at END
         WHERE product_id = $2 AND mode = $3 AND email = $4 RETURNING id, state = 'pending' AND $9::boolean AS again
       ), mail AS (
         INSERT INTO outbox (queue, name, data, created_at)
         SELECT $7, 'confirmation', $8::jsonb || jsonb_build_object('entryId', id), $5
         FROM (SELECT id FROM entry WHERE $9::boolean UNION ALL SELECT id FROM known WHERE again) AS mailed RETURNING 1
       ), event AS (
         INSERT INTO events (id, product_id, mode, type, created_at, body) SELECT $10, $2, $3, $11, $5, $12 FROM entry
       ), fan_out AS (
         INSERT INTO outbox (queue, name, data, created_at) SELECT $13, 'fan-out', $14::jsonb, $5 FROM entry
       ), day AS (
         INSERT INTO daily_event_counts (product_id, mode, day, type, count)
         SELECT $2, $3, ($5::timestamptz AT TIME ZONE 'UTC')::date, $11, 1 FROM entry
         ON CONFLICT (product_id, mode, day, type, stripe) DO UPDATE SET count = daily_event_counts.count + 1
       )
       SELECT EXISTS (SELECT FROM entry) AS created, EXISTS (SELECT FROM mail) AS mailed`,
      [
        id, scope.productId, scope.mode, email, now, ref ?? null,
        QueueName.Mail, { entryId: id, httpRequestId } satisfies ConfirmationJob, mailDue,
        event.id, event.type, JSON.stringify(event),
        QueueName.Webhooks, { eventId: event.id }, newId('rfl'), suppressionHash(email),
      ],
    );
    return written;
  }

  /** Shows what the link's entry is at, without changing anything (GET of a confirm link). */
  async confirmStatus(token: string): Promise<ConfirmStatus> {
    const record = await this.entryOfToken(this.db.manager, token, 'confirm');
    const product = await this.db.getRepository(Product).findOneByOrFail({ id: record.productId });
    const key = await this.publishableKeyOf(product.id, record.mode);
    const frame = { productName: product.name, myDataLink: key && `${this.config.PUBLIC_BASE_URL}/w/${encodeURIComponent(key)}/my-data` };
    if (record.state === 'pending') return { state: 'pending', ...frame };
    if (record.state !== 'confirmed') return { state: 'invited', ...frame };
    const { place, estimatedWaitDays } = await this.line.standingOf(record);
    const friends = { credited: record.referrals, places: record.referrals * product.referralPlaces, beingChecked: await this.referralLists.beingChecked(record.id) };
    return {
      state: 'confirmed',
      ...frame,
      place,
      estimatedWaitDays,
      referralLink: this.referralLink(product, record, key),
      friends,
      leaderboard: await this.leaderboard.maskedBoard(record),
      milestones: await this.referralLists.milestonesOf(record.id),
    };
  }

  /**
   * Confirms the entry behind a confirmation link (the POST of the confirm page, from the client at
   * `ip`): it joins the line at the next confirmation number, and the credit of its referral, if it
   * came through a referral link, is decided (ReferralsService.confirmed). Confirming again changes nothing.
   */
  async confirm(token: string, ip: string): Promise<void> {
    await this.db.transaction(async (manager) => {
      const { entry, issuedAt } = await this.tokenOf(manager, token, 'confirm', true);
      if (entry.state !== 'pending') return;
      const now = this.clock.now();
      const product = await this.line.join(manager, entry, now);
      const kept = await this.referrals.confirmed(manager, entry, product, { ip, mailedAt: issuedAt, now });
      Object.assign(entry, {
        state: 'confirmed',
        confirmedAt: now,
        referralCode: newReferralCode(),
        // A referral withheld at confirmation is forgotten here: referred_by names the referrer it counts or waits for.
        referredBy: kept ? entry.referredBy : null,
      });
      await manager.save(entry);
      await recordEvent(manager, 'entry.confirmed', entry, toEntry(entry), now);
    });
  }

  /** The product name behind an unsubscribe link, for its page; 404 when the link is spent. */
  async unsubscribeTarget(token: string): Promise<string> {
    const entry = await this.entryOfToken(this.db.manager, token, 'unsubscribe');
    return (await this.db.getRepository(Product).findOneByOrFail({ id: entry.productId })).name;
  }

  /**
   * Deletes the entry behind an unsubscribe link and every trace of it (eraseTraces, as a deletion), and
   * emits entry.unsubscribed with it as it was; its address goes on the suppression list (imports skip
   * it, a referral link's credit too; a sign-up of its own is still welcome).
   */
  async unsubscribe(token: string): Promise<void> {
    await this.db.transaction(async (manager) => {
      const entry = await this.entryOfToken(manager, token, 'unsubscribe', true);
      const now = this.clock.now();
      await eraseTraces(manager, entry);
      await manager.delete(EntryRecord, { id: entry.id });
      await suppress(manager, entry, [entry.email], now);
      await recordEvent(manager, 'entry.unsubscribed', entry, toEntry(entry), now);
    });
  }

  private async scopeOfPublishableKey(key: string): Promise<KeyScope> {
    const scope = await this.keys.authenticate(key, 'publishable');
    if (!scope) throw unknownKey();
    return scope;
  }

  private async entryOfToken(manager: EntityManager, token: string, purpose: TokenPurpose, lock = false): Promise<EntryRecord> {
    return (await this.tokenOf(manager, token, purpose, lock)).entry;
  }

  /** The entry behind a link's token, and when the token was made (just before its mail's handover). */
  private async tokenOf(manager: EntityManager, token: string, purpose: TokenPurpose, lock: boolean): Promise<{ entry: EntryRecord; issuedAt: Date }> {
    const found = await manager.getRepository(EntryToken).findOneBy({ hash: hashToken(token), purpose });
    const entry =
      found &&
      (await manager
        .getRepository(EntryRecord)
        .findOne({ where: { id: found.entryId }, lock: lock ? { mode: 'pessimistic_write' } : undefined }));
    if (!found || !entry) throw new ApiError('not_found', 'This link is no longer valid.');
    return { entry, issuedAt: found.createdAt };
  }

  /** The product's sign-up page with ?ref=, or the hosted one (of its publishable key in use) when the product has none. */
  private referralLink(product: Product, entry: EntryRecord, publishableKey: string | null): string | null {
    if (!entry.referralCode) return null;
    const base = product.signupUrl ?? (publishableKey && `${this.config.PUBLIC_BASE_URL}/w/${publishableKey}`);
    if (!base) return null;
    const url = new URL(base);
    url.searchParams.set('ref', entry.referralCode);
    return url.toString();
  }

  /** The newest publishable key in use of a product and mode (publishable keys are public: it is kept whole). */
  private async publishableKeyOf(productId: string, mode: EntryRecord['mode']): Promise<string | null> {
    const key = await this.db.getRepository(ApiKey).findOne({
      where: { productId, mode, kind: 'publishable', revokedAt: IsNull() },
      order: { createdAt: 'DESC' },
    });
    return key?.hint ?? null;
  }
}

const unknownKey = () => new ApiError('unauthorized', 'Unknown or revoked publishable key.', { param: 'key' });

/** An entry as a sign-up inserts it: pending, with nothing else yet. */
function newEntry(id: string, email: string, createdAt: Date) {
  return { id, email, state: 'pending' as const, createdAt, confirmedAt: null, invitedAt: null, redeemedAt: null, referralCode: null, referrals: 0 };
}
