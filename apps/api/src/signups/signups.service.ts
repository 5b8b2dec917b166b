import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  canonicalEmail,
  Clock,
  eventEnvelope,
  EntryRecord,
  JobData,
  Locale,
  newId,
  newReferralCode,
  normalizeEmail,
  preparedQuery,
  Product,
  QueueName,
  recordEvent,
  toEntry,
} from '@app/shared';
import { DataSource, EntityManager } from 'typeorm';
import type { KeyScope } from '../common/scope';
import { KeysService } from '../keys/keys.service';
import { ApiError } from '../common/api-error';
import { ChallengesService } from '../challenges/challenges.service';
import { eraseTraces } from '../entries/erasure';
import { suppress, suppressionHash } from '../entries/suppressions';
import { RateLimits } from '../common/rate-limits';
import { LineService } from '../line/line.service';
import { ReferralsService } from '../referrals/referrals.service';
import { confirmingEntry, entryOfToken } from './entry-links';
import { checkedDetails, Details, ProductQuestions, QuestionsRead, QUESTIONS_VERSION, SignupDetails } from './signup-details';
import { SignupPace } from './signup-pace';
import { SignupSignals } from './signup-signals';
import { SignupWatches } from './signup-watches';

type ConfirmationJob = JobData<QueueName.Mail, 'confirmation'>;

export interface SignupInput {
  key: string;
  email?: unknown;
  ref?: string;
  /** The script-tag form's secret, to ask later whether the address was confirmed (SignupWatches). */
  watch?: string;
  ip: string;
  /** The request's X-Request-Id, carried to the confirmation mail's lines in the mailer's log. */
  requestId: string;
  /** The language asked for (the locale field, or the hosted form's Accept-Language); else the product's default. */
  locale?: Locale;
  /** The product's questions' answers and the visit's attribution, as the request brought them (signup-details.ts). */
  details: SignupDetails;
  /** The forms' honeypot field and "shown at" token, as sent (SignupSignals). */
  website?: unknown;
  formToken?: unknown;
  /** The solution of the product's sign-up challenge, where it has one on (ChallengesService). */
  challenge?: string;
}

@Injectable()
export class SignupsService {
  private readonly pace = new SignupPace();
  private readonly questions = new ProductQuestions();

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly keys: KeysService,
    private readonly line: LineService,
    private readonly referrals: ReferralsService,
    private readonly limits: RateLimits,
    private readonly watches: SignupWatches,
    private readonly challenges: ChallengesService,
    private readonly clock: Clock,
    private readonly signals: SignupSignals,
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
    const answer = this.pace.start();
    const scope = await this.scopeOfPublishableKey(input.key);
    // Before the address is read, so that the refusal is the same for every address; a refusal counts
    // against the network's limit first, so that a flood of them is held to it as sign-ups are.
    if (!(await this.challenges.passes(scope, input.challenge))) {
      await this.limits.signupFromIp(input.ip);
      await this.challenges.refuse(scope);
    }
    const email = normalizeEmail(input.email);
    if (!email) throw new ApiError('invalid_email', 'Enter a valid email address.', { param: 'email' });
    await this.limits.signupFromIp(input.ip);
    const signals = { honeypot: input.website, formToken: input.formToken };
    let { questions, details } = await this.questions.checked(this.db, scope.productId, input.details, this.signals.judges(signals));
    // After every check a person's sign-up meets too, so that a dropped one is answered as theirs is.
    if (await this.signals.refused(scope, signals)) {
      await answer('dropped');
      return scope;
    }
    // Counted per mailbox, so that variants of one address (flood+1@, f.l.o.o.d@gmail.com) share one limit.
    // Taken before it is known whether the address is new, so that every sign-up is one statement, and
    // given back when no mail goes out after all.
    const mailbox = canonicalEmail(email);
    const mailDue = await this.limits.confirmationMailFor(scope, mailbox);
    let written = await this.write(scope, email, input, mailDue, details, questions);
    // The product's questions changed since this process read them: checked again as they are now.
    while (written.stale) {
      const checked = checkedDetails((questions = this.questions.noted(scope.productId, written.stale)).questions, input.details);
      if ('refusal' in checked && mailDue) await this.limits.returnConfirmationMail(scope, mailbox);
      if ('refusal' in checked) throw checked.refusal;
      written = await this.write(scope, email, input, mailDue, (details = checked), questions);
    }
    const { created, mailed } = written;
    if (mailDue && !mailed) await this.limits.returnConfirmationMail(scope, mailbox);
    if (input.watch !== undefined) await this.watches.note(input.watch, mailed);
    const write = created ? 'created' : mailed ? 'mailed' : 'unchanged';
    await answer(write);
    return scope;
  }

  /**
   * One statement for every sign-up, committed without another round trip: the day's count and the
   * product's count of pending entries are rows that the sign-ups of the product on this connection's
   * stripe share, and their locks are held until the commit. The pending count is added here, not
   * noted for the commit (migration SignupsCountThemselves1795907200000), read from the day's count so
   * that it is taken after it, as every commit takes them; the referrer's row is locked as its key's
   * check would, before either, so that a deletion of it is waited for holding neither.
   * - A new address gets its entry (in the language asked for, else the product's default), its
   *   referral when it came through a referral link (pending until it confirms; none for an address on
   *   the suppression list, which comes back as its own sign-up alone), its entry.created event (the
   *   rows recordEvents writes: the event, its fan-out job, the day's count), its confirmation mail's
   *   outbox row, and its answers and attribution in entry_details when it has any.
   * - A pending one, when a mail is due, gets a new createdAt and the mail's outbox row (the update
   *   waits for a concurrent confirmation, or a concurrent sign-up of the same new address, and then
   *   reads the entry as committed: one no longer pending is left as it is).
   * - Any other, nothing: a known address keeps its language, answers and attribution (docs/decisions/languages.md).
   * It writes nothing when the product's questions are no longer `questions`, the ones its answers were
   * checked against (their versions differ), and says so with the questions it found (`stale`).
   * Whether it created an entry, and the entry it wrote a confirmation mail for.
   */
  private async write(
    scope: KeyScope,
    email: string,
    { ref, locale, requestId: httpRequestId }: SignupInput,
    mailDue: boolean,
    details: Details,
    questions: QuestionsRead,
  ): Promise<{ created: boolean; mailed: string | null; stale: QuestionsRead | null }> {
    const now = this.clock.now();
    const id = newId('ent');
    const event = eventEnvelope('entry.created', scope, toEntry(newEntry(id, email, now)), now);
    const [written] = await preparedQuery<{ created: boolean; mailed: string | null; stale: QuestionsRead | null }>(
      this.db,
      `WITH written AS (
         INSERT INTO entries (id, product_id, mode, email, state, created_at, referred_by, locale)
         SELECT $1, $2, $3, $4, 'pending', $5,
                (SELECT id FROM entries WHERE $6::text IS NOT NULL AND product_id = $2 AND mode = $3 AND referral_code = $6
                   AND NOT EXISTS (SELECT FROM suppressed_addresses WHERE product_id = $2 AND mode = $3 AND email_hash = $19) FOR KEY SHARE),
                COALESCE($16, (SELECT default_locale FROM products WHERE id = $2))
         WHERE NOT EXISTS (SELECT FROM products WHERE id = $2 AND ${QUESTIONS_VERSION} IS DISTINCT FROM $20::text)
         -- A known address is found through the same unique index as the insert's conflict, whatever the
         -- table's statistics say: a pending one, when a mail is due, is written again; any other is left.
         ON CONFLICT (product_id, mode, email) DO UPDATE SET created_at = $5 WHERE entries.state = 'pending' AND $9::boolean
         RETURNING id, referred_by
       ), entry AS (
         SELECT id, referred_by FROM written WHERE id = $1
       ), referral AS (
         INSERT INTO referrals (id, product_id, mode, referrer_id, referred_id, state, reasons, created_at)
         SELECT $15, $2, $3, referred_by, id, 'pending', '{not_confirmed}', $5 FROM entry WHERE referred_by IS NOT NULL
       ), mail AS (
         INSERT INTO outbox (queue, name, data, created_at)
         SELECT $7, 'confirmation', $8::jsonb || jsonb_build_object('entryId', id), $5 FROM written WHERE $9::boolean RETURNING data->>'entryId' AS id
       ), event AS (
         INSERT INTO events (id, product_id, mode, type, created_at) SELECT $10, $2, $3, $11, $5 FROM entry
       ), fan_out AS (
         INSERT INTO outbox (queue, name, data, created_at, body) SELECT $13, 'fan-out', $14::jsonb, $5, $12 FROM entry
       ), day AS (
         INSERT INTO daily_event_counts (product_id, mode, day, type, count)
         SELECT $2, $3, ($5::timestamptz AT TIME ZONE 'UTC')::date, $11, 1 FROM entry
         ON CONFLICT (product_id, mode, day, type, stripe) DO UPDATE SET count = daily_event_counts.count + 1 RETURNING stripe
       ), counted AS (
         INSERT INTO entry_counts (product_id, mode, pending, confirmed, invited, redeemed)
         SELECT $2, $3, 1, 0, 0, 0 FROM day, entry WHERE set_config('waitlist.counted_entry', entry.id, true) = entry.id
         ON CONFLICT (product_id, mode, stripe) DO UPDATE SET pending = entry_counts.pending + 1
       ), details AS (
         INSERT INTO entry_details (entry_id, answers, attribution)
         SELECT id, $17::jsonb, $18::jsonb FROM entry WHERE $17::jsonb IS NOT NULL OR $18::jsonb IS NOT NULL
       )
       SELECT EXISTS (SELECT FROM entry) AS created, (SELECT id FROM mail) AS mailed,
              (SELECT json_build_object('questions', questions, 'version', ${QUESTIONS_VERSION}) FROM products
                WHERE id = $2 AND ${QUESTIONS_VERSION} IS DISTINCT FROM $20::text) AS stale`,
      [
        id, scope.productId, scope.mode, email, now, ref ?? null,
        QueueName.Mail, { entryId: id, httpRequestId } satisfies ConfirmationJob, mailDue,
        event.id, event.type, JSON.stringify(event),
        QueueName.Webhooks, { eventId: event.id }, ref ? newId('rfl') : null, locale ?? null,
        details.answers && JSON.stringify(details.answers), details.attribution && JSON.stringify(details.attribution), ref ? suppressionHash(email) : null,
        questions.version,
      ],
    );
    return written;
  }

  /**
   * Confirms the entry behind a confirmation link (the POST of the confirm page, from the client at
   * `ip`): its referral's credit, if it came through a referral link, is decided first
   * (ReferralsService.atConfirmation), then it joins the line at the next confirmation number, last
   * before the commit (LineService.join), so that the product's confirmations take turns only for that
   * statement and the commit. Confirming again changes nothing.
   */
  async confirm(token: string, ip: string): Promise<void> {
    // Its own connection, begun and ended here, because the line's statement may commit it (LineService.join).
    const runner = this.db.createQueryRunner();
    try {
      await runner.query('BEGIN');
      if (!(await this.confirmIn(runner.manager, token, ip))) await runner.query('COMMIT');
    } catch (error) {
      // A connection that failed is released as it is; the error that ended the work is the one to report.
      await runner.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      await runner.release();
    }
  }

  /** The confirmation in the transaction of `manager`: whether it committed it. */
  private async confirmIn(manager: EntityManager, token: string, ip: string): Promise<boolean> {
    const confirming = await confirmingEntry(manager, token);
    const { entry } = confirming;
    if (entry.state !== 'pending') return false;
    const now = this.clock.now();
    const decided = await this.referrals.atConfirmation(manager, confirming, { ip, mailedAt: confirming.issuedAt, now });
    const referralCode = newReferralCode();
    const event = eventEnvelope('entry.confirmed', entry, toEntry({ ...entry, state: 'confirmed', confirmedAt: now, referralCode }), now);
    // A credit that may reach a milestone has the milestone to write after the line's statement.
    const commit = !(confirming.milestones && decided.referral?.state === 'credited');
    const credited = await this.line.join(manager, { entry, now, referralCode, event, commit, ...decided });
    // After a commit sent with the statement, only a milestone added meanwhile is left: it is written on its own.
    if (credited) await this.referrals.reach(manager, credited.id, credited, now);
    return commit;
  }

  /**
   * Deletes the entry behind an unsubscribe link and every trace of it (eraseTraces, as a deletion), and
   * emits entry.unsubscribed with it as it was; its address goes on the suppression list (imports skip
   * it, a referral link's credit too; a sign-up of its own is still welcome). The language it had, for
   * the page that says so.
   */
  async unsubscribe(token: string): Promise<Locale> {
    return this.db.transaction(async (manager) => {
      const entry = await entryOfToken(manager, token, 'unsubscribe', true);
      await unsubscribeEntry(manager, entry, this.clock.now());
      return entry.locale;
    });
  }

  /** The product and mode of a publishable key (keys are cached), or 401. */
  async scopeOfPublishableKey(key: string): Promise<KeyScope> {
    const scope = await this.keys.authenticate(key, 'publishable');
    if (!scope) throw unknownKey();
    return scope;
  }
}

/**
 * What an unsubscribe does to its entry, in the caller's transaction: its link's POST, and a mail
 * provider's complaint about a mail to it (MailFeedbackService).
 */
export async function unsubscribeEntry(manager: EntityManager, entry: EntryRecord, now: Date): Promise<void> {
  await eraseTraces(manager, entry);
  await manager.delete(EntryRecord, { id: entry.id });
  await suppress(manager, entry, [entry.email], now);
  await recordEvent(manager, 'entry.unsubscribed', entry, toEntry(entry), now);
}

const unknownKey = () => new ApiError('unauthorized', 'Unknown or revoked publishable key.', { param: 'key' });

/** An entry as a sign-up inserts it: pending, with nothing else yet. */
function newEntry(id: string, email: string, createdAt: Date) {
  return { id, email, state: 'pending' as const, createdAt, confirmedAt: null, invitedAt: null, redeemedAt: null, referralCode: null, referrals: 0 };
}
