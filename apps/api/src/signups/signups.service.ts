import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  ApiKey,
  APP_CONFIG,
  AppConfig,
  canonicalEmail,
  Clock,
  enqueue,
  eventEnvelope,
  EntryRecord,
  EntryToken,
  hashToken,
  JobData,
  newId,
  newReferralCode,
  normalizeEmail,
  Product,
  QueueName,
  recordEvent,
  toEntry,
  TokenPurpose,
} from '@app/shared';
import { DataSource, EntityManager, IsNull } from 'typeorm';
import type { KeyScope } from '../common/scope';
import { KeysService } from '../keys/keys.service';
import { ApiError } from '../common/api-error';
import { RateLimits } from '../common/rate-limits';
import { LineService } from '../line/line.service';

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
export type ConfirmStatus =
  | { state: 'pending'; productName: string }
  | { state: 'confirmed'; productName: string; place: number; estimatedWaitDays: number | null; referralLink: string | null }
  | { state: 'invited'; productName: string };

@Injectable()
export class SignupsService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly keys: KeysService,
    private readonly line: LineService,
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
   * tells nobody which addresses are on the list. A new address becomes a pending entry; a pending one
   * gets a new confirmation mail (within its per-address limit); others change nothing.
   */
  async signUp(input: SignupInput): Promise<KeyScope> {
    const scope = await this.scopeOfPublishableKey(input.key);
    const email = normalizeEmail(input.email);
    if (!email) throw new ApiError('invalid_email', 'Enter a valid email address.', { param: 'email' });
    await this.limits.signupFromIp(input.ip);
    // Counted per mailbox, so that variants of one address (flood+1@, f.l.o.o.d@gmail.com) share one limit.
    // Taken before it is known whether the address is new, so that a new address is one statement, and
    // given back when no mail goes out after all.
    const mailbox = `${scope.productId}:${scope.mode}:${canonicalEmail(email)}`;
    const mailDue = await this.limits.confirmationMailFor(mailbox);
    const mailed = (await this.insertNew(scope, email, input.ref, mailDue, input.requestId))
      ? mailDue
      : await this.mailAgain(scope, email, mailDue, input.requestId);
    if (mailDue && !mailed) await this.limits.returnConfirmationMail(mailbox);
    return scope;
  }

  /**
   * A new address's entry, its entry.created event (the rows recordEvents writes: the event, its
   * fan-out job, the day's count) and its confirmation mail's outbox row, in one statement, committed
   * without another round trip: the day's count (and, at the commit, the product's count of pending
   * entries) is a row that the sign-ups of the product on this connection's stripe share, and its lock
   * is held until the commit. False when the address is on the list already (nothing changed).
   */
  private async insertNew(scope: KeyScope, email: string, ref: string | undefined, mailDue: boolean, httpRequestId: string): Promise<boolean> {
    const now = this.clock.now();
    const id = newId('ent');
    const event = eventEnvelope('entry.created', scope, toEntry(newEntry(id, email, now)), now);
    const inserted: { id: string }[] = await this.db.query(
      `WITH entry AS (
         INSERT INTO entries (id, product_id, mode, email, state, created_at, referred_by)
         VALUES ($1, $2, $3, $4, 'pending', $5,
                 (SELECT id FROM entries WHERE product_id = $2 AND mode = $3 AND referral_code = $6))
         ON CONFLICT (product_id, mode, email) DO NOTHING RETURNING id
       ), mail AS (
         INSERT INTO outbox (queue, name, data, created_at) SELECT $7, 'confirmation', $8::jsonb, $5 FROM entry WHERE $9::boolean
       ), event AS (
         INSERT INTO events (id, product_id, mode, type, created_at, body) SELECT $10, $2, $3, $11, $5, $12 FROM entry
       ), fan_out AS (
         INSERT INTO outbox (queue, name, data, created_at) SELECT $13, 'fan-out', $14::jsonb, $5 FROM entry
       ), day AS (
         INSERT INTO daily_event_counts (product_id, mode, day, type, count)
         SELECT $2, $3, ($5::timestamptz AT TIME ZONE 'UTC')::date, $11, 1 FROM entry
         ON CONFLICT (product_id, mode, day, type, stripe) DO UPDATE SET count = daily_event_counts.count + 1
       )
       SELECT id FROM entry`,
      [
        id, scope.productId, scope.mode, email, now, ref ?? null,
        QueueName.Mail, { entryId: id, httpRequestId } satisfies ConfirmationJob, mailDue,
        event.id, event.type, JSON.stringify(event),
        QueueName.Webhooks, { eventId: event.id },
      ],
    );
    return inserted.length > 0;
  }

  /** A known address: a pending one gets a new mail if one is due, others nothing. True when mailed. */
  private async mailAgain(scope: KeyScope, email: string, mailDue: boolean, httpRequestId: string): Promise<boolean> {
    return this.db.transaction(async (manager) => {
      const existing = await manager.getRepository(EntryRecord).findOne({
        where: { productId: scope.productId, mode: scope.mode, email },
        lock: { mode: 'pessimistic_write' },
      });
      if (existing?.state !== 'pending' || !mailDue) return false;
      const now = this.clock.now();
      await manager.update(EntryRecord, { id: existing.id }, { createdAt: now });
      await enqueue(manager, QueueName.Mail, 'confirmation', { entryId: existing.id, httpRequestId }, now);
      return true;
    });
  }

  /** Shows what the link's entry is at, without changing anything (GET of a confirm link). */
  async confirmStatus(token: string): Promise<ConfirmStatus> {
    const record = await this.entryOfToken(this.db.manager, token, 'confirm');
    const product = await this.db.getRepository(Product).findOneByOrFail({ id: record.productId });
    if (record.state === 'pending') return { state: 'pending', productName: product.name };
    if (record.state !== 'confirmed') return { state: 'invited', productName: product.name };
    const { place, estimatedWaitDays } = await this.line.standingOf(record);
    return { state: 'confirmed', productName: product.name, place, estimatedWaitDays, referralLink: await this.referralLink(product, record) };
  }

  /**
   * Confirms the entry behind a confirmation link (the POST of the confirm page): it joins the line
   * at the next confirmation number and, if it came through a referral link that counts, moves its
   * referrer up. Confirming again changes nothing.
   */
  async confirm(token: string): Promise<void> {
    await this.db.transaction(async (manager) => {
      const entry = await this.entryOfToken(manager, token, 'confirm', true);
      if (entry.state !== 'pending') return;
      const now = this.clock.now();
      const counted = await this.line.join(manager, entry);
      Object.assign(entry, {
        state: 'confirmed',
        confirmedAt: now,
        referralCode: newReferralCode(),
        // A referral that does not count is forgotten: the referrer's referred entries are those that counted.
        referredBy: counted ? entry.referredBy : null,
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

  /** Deletes the entry behind an unsubscribe link and emits entry.unsubscribed with it as it was. */
  async unsubscribe(token: string): Promise<void> {
    await this.db.transaction(async (manager) => {
      const entry = await this.entryOfToken(manager, token, 'unsubscribe', true);
      await manager.delete(EntryRecord, { id: entry.id });
      await recordEvent(manager, 'entry.unsubscribed', entry, toEntry(entry), this.clock.now());
    });
  }

  private async scopeOfPublishableKey(key: string): Promise<KeyScope> {
    const scope = await this.keys.authenticate(key, 'publishable');
    if (!scope) throw unknownKey();
    return scope;
  }

  private async entryOfToken(manager: EntityManager, token: string, purpose: TokenPurpose, lock = false): Promise<EntryRecord> {
    const found = await manager.getRepository(EntryToken).findOneBy({ hash: hashToken(token), purpose });
    const entry =
      found &&
      (await manager
        .getRepository(EntryRecord)
        .findOne({ where: { id: found.entryId }, lock: lock ? { mode: 'pessimistic_write' } : undefined }));
    if (!entry) throw new ApiError('not_found', 'This link is no longer valid.');
    return entry;
  }

  /** The product's sign-up page with ?ref=, or the hosted one when the product has none. */
  private async referralLink(product: Product, entry: EntryRecord): Promise<string | null> {
    if (!entry.referralCode) return null;
    let base = product.signupUrl;
    if (!base) {
      const key = await this.db.getRepository(ApiKey).findOne({
        where: { productId: product.id, mode: entry.mode, kind: 'publishable', revokedAt: IsNull() },
        order: { createdAt: 'DESC' },
      });
      if (!key) return null;
      base = `${this.config.PUBLIC_BASE_URL}/w/${key.hint}`;
    }
    const url = new URL(base);
    url.searchParams.set('ref', entry.referralCode);
    return url.toString();
  }
}

const unknownKey = () => new ApiError('unauthorized', 'Unknown or revoked publishable key.', { param: 'key' });

/** An entry as a sign-up inserts it: pending, with nothing else yet. */
function newEntry(id: string, email: string, createdAt: Date) {
  return { id, email, state: 'pending' as const, createdAt, confirmedAt: null, invitedAt: null, redeemedAt: null, referralCode: null, referrals: 0 };
}
