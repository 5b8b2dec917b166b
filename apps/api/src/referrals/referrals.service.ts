import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { canonicalEmail, Clock, EntryRecord, hashToken, Metrics, preparedQuery, ProtectionLevel, recordEvent, Referral, ReferralReason, ReferralRules, toEntry, WITHHOLDING_REASONS } from '@app/shared';
import type { Counter } from 'prom-client';
import { DataSource, EntityManager } from 'typeorm';
import { ApiError } from '../common/api-error';
import type { ProductScope } from '../common/scope';
import { notFound } from '../entries/entries.service';
import type { Joining } from '../line/join-line';
import { Credited, LineService } from '../line/line.service';
import { recordPlaceChange } from '../line/place-history';
import { milestonesReached } from './milestones';
import { DISPOSABLE_DOMAIN_LIST, DomainList, isDisposableDomain } from './disposable-domains';
import { networkOf } from '../common/client-network';
import { overVelocity } from './network-velocity';
import { Protection, protectionOf } from './protection';
import { creditAtConfirmation, TeamDecision, teamDecision } from './referral-credit';
import type { ReferralView } from './referrals.dto';
import { referralNotFound, toView } from './referral-lists';
import { BURST_WINDOW_MS, inBurst } from './referral-burst';
import { tooFast } from './too-fast';
import { waitingOver, waitingPeriod } from './waiting-period';

/** What a confirmation tells about its referral. */
export interface Confirmation {
  /** The confirming client's address (request.ip, which honours TRUST_PROXY). */
  ip: string;
  /** When the mailer stored the confirmation link's token, just before the mail's handover. */
  mailedAt: Date;
  now: Date;
}

/** The waiting periods the maintenance round ends at most per round. */
const CREDITS_PER_ROUND = 1000;

/**
 * Referral credit: every sign-up through a referral link has a referral (written by the sign-up's
 * statement), whose credit is decided when its entry confirms, by the product's protection
 * (protection.ts) and the one-rule modules beside this file; a waiting period ends in the maintenance
 * round; the team grants and revokes. Only credited referrals count in the referrer's referrals and
 * line key, which move at once (LineService.credit), and each change is in the referrer's history.
 */
/** What the decision on a confirming entry's referral reads (the confirmation reads it with the entry). */
export interface ReferralAtConfirmation {
  entry: { id: string; email: string } & ProductScope;
  protection: ProtectionLevel;
  rules: ReferralRules;
  referral: { id: string; createdAt: Date; referrerId: string; referrerEmail: string } | null;
}

@Injectable()
export class ReferralsService {
  private readonly withheld: Counter<'reason'>;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(DISPOSABLE_DOMAIN_LIST) private readonly disposable: DomainList,
    private readonly line: LineService,
    private readonly clock: Clock,
    metrics: Metrics,
  ) {
    this.withheld = metrics.counter({
      name: 'waitlist_referrals_withheld_total',
      help: 'Referrals held for the team\'s review at their confirmation, by each reason that held them',
      labelNames: ['reason'],
    });
    for (const reason of WITHHOLDING_REASONS) this.withheld.inc({ reason }, 0);
  }

  /**
   * Decides the credit of the referral of a confirming entry, in the confirmation's transaction, before
   * it takes its number: LineService.join then writes it. The network's count is exact because the
   * confirmations of one referrer from one network take turns on an advisory lock, from the count
   * until their commit (only where the velocity rule is on).
   */
  async atConfirmation(manager: EntityManager, confirming: ReferralAtConfirmation, confirmation: Confirmation): Promise<Pick<Joining, 'keepsReferrer' | 'referral'>> {
    const { entry, referral } = confirming;
    if (!referral) return { keepsReferrer: false, referral: null };
    const protection = protectionOf(confirming.protection, confirming.rules);
    const network = networkOf(confirmation.ip);
    const signals = await this.signals(manager, { entry, referral, network, protection, confirmation });
    const period = waitingPeriod(confirmation.now, protection);
    let credit = creditAtConfirmation(signals, period !== null);
    if (credit.state !== 'withheld' && !(await this.claimMailbox(manager, entry))) credit = creditAtConfirmation(['already_credited'], false);
    const waits = credit.state === 'pending' ? period : null;
    for (const reason of credit.state === 'withheld' ? credit.reasons : []) this.withheld.inc({ reason });
    return {
      keepsReferrer: credit.state !== 'withheld',
      referral: { id: referral.id, ...credit, network, creditAt: waits?.creditAt ?? null, creditAfter: waits?.creditAfter ?? null },
    };
  }

  /**
   * Each milestone a referrer's count reaches, recorded once per entry and milestone (the key of
   * entry_milestones: a revoke and a new grant never reach one twice), in the credit's transaction: its
   * places move the entry up (history: milestone, after the credit's own row) and entry.milestone is
   * emitted. Called after a gain of credit only.
   */
  async reach(manager: EntityManager, entryId: string, credited: Credited | null, now: Date): Promise<void> {
    if (!credited) return;
    for (const milestone of milestonesReached(credited.milestones, credited.referrals)) {
      const reached: unknown[] = await manager.query(
        `INSERT INTO entry_milestones (entry_id, referrals, product_id, mode, name, places, message, reached_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT DO NOTHING RETURNING 1`,
        [entryId, milestone.referrals, credited.productId, credited.mode, milestone.name, milestone.places, milestone.message, now],
      );
      if (reached.length === 0) continue;
      if (milestone.places > 0) await this.line.milestoneMoveUp(manager, credited, entryId, milestone.places, now);
      const entry = await manager.getRepository(EntryRecord).findOneByOrFail({ id: entryId });
      // The event's milestone keeps its documented fields; its words in other languages are the status page's.
      const { referrals, name, places, message } = milestone;
      await recordEvent(manager, 'entry.milestone', credited, toEntry(entry), now, { milestone: { referrals, name, places, message } });
    }
  }

  /** The rules that withhold a referral, each from its own module; off checks only the first. */
  private async signals(
    manager: EntityManager,
    at: { entry: ReferralAtConfirmation['entry']; referral: NonNullable<ReferralAtConfirmation['referral']>; network: string | null; protection: Protection; confirmation: Confirmation },
  ): Promise<ReferralReason[]> {
    const { entry, referral, network, protection, confirmation } = at;
    const signals: ReferralReason[] = [];
    if (canonicalEmail(referral.referrerEmail) === canonicalEmail(entry.email)) signals.push('own_address');
    const lists = { blocked: protection.blockedDomains, allowed: protection.allowedDomains };
    if (protection.disposableDomains && isDisposableDomain(entry.email, this.disposable, lists)) signals.push('disposable_domain');
    if (network !== null && protection.velocityLimit > 0) {
      // Before the count, in a statement of its own, so that the count's snapshot sees the commit it waited for.
      await manager.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`velocity|${referral.referrerId}|${network}`]);
      const since = new Date(confirmation.now.getTime() - protection.velocityWindowHours * 3_600_000);
      const [{ earlier }]: { earlier: number }[] = await manager.query(
        `SELECT count(*)::int AS earlier FROM referrals WHERE referrer_id = $1 AND network = $2 AND confirmed_at > $3 AND id <> $4`,
        [referral.referrerId, network, since, referral.id],
      );
      if (overVelocity(earlier, protection.velocityLimit)) signals.push('network_velocity');
    }
    if (tooFast(confirmation.mailedAt, confirmation.now, protection.tooFastSeconds)) signals.push('too_fast');
    if (protection.burstPerHour > 0) {
      // The sign-ups through the link before this one within its hour, in the order they signed up (ties by id).
      const [{ earlier }]: { earlier: number }[] = await manager.query(
        `SELECT count(*)::int AS earlier FROM referrals WHERE referrer_id = $1 AND created_at > $2 AND (created_at, id) < ($3, $4)`,
        [referral.referrerId, new Date(referral.createdAt.getTime() - BURST_WINDOW_MS), referral.createdAt, referral.id],
      );
      if (inBurst(earlier, protection.burstPerHour)) signals.push('referral_burst');
    }
    return signals;
  }

  /**
   * A mailbox (canonicalEmail) counts once per product and mode, through any link, as any variant, for
   * an entry since deleted or not: false when it has counted before. Only its SHA-256 is kept.
   */
  private async claimMailbox(manager: EntityManager, entry: Pick<EntryRecord, 'productId' | 'mode' | 'email'>): Promise<boolean> {
    const claimed = await preparedQuery(
      manager.queryRunner!,
      `INSERT INTO referral_credits (product_id, mode, email_hash) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING 1`,
      [entry.productId, entry.mode, hashToken(canonicalEmail(entry.email))],
    );
    return claimed.length > 0;
  }

  /**
   * The team grants or revokes a confirmed referral of an entry: its credit, the referrer's count and
   * line key change at once, in one transaction that holds the line's counter (shared) and then the
   * referral's row, so that concurrent decisions take turns per referral and the count stays its
   * credited referrals. Doing what is done already changes nothing.
   */
  async decide(scope: ProductScope, entryId: string, referralId: string, decision: TeamDecision): Promise<ReferralView> {
    return this.db.transaction(async (manager) => {
      const places = await this.line.holdReferralPlaces(manager, scope);
      const referral =
        places === null
          ? null
          : await manager
              .getRepository(Referral)
              .findOne({ where: { id: referralId, referrerId: entryId, productId: scope.productId, mode: scope.mode }, lock: { mode: 'pessimistic_write' } });
      if (!referral || places === null) throw referralNotFound();
      if (!referral.confirmedAt) throw new ApiError('not_confirmed', 'The referred entry has not confirmed its address; its referral cannot be decided yet.');
      const referred = await manager.getRepository(EntryRecord).findOneByOrFail({ id: referral.referredId });
      const next = teamDecision(referral, decision);
      if (next) {
        const now = this.clock.now();
        Object.assign(referral, { state: next.state, reasons: next.reasons, creditAt: null, creditAfter: null, decidedAt: now });
        await manager.save(referral);
        const moved = next.credits !== 0 ? await this.line.credit(manager, entryId, next.credits, places) : null;
        // Its mailbox has counted now, whether or not it had before.
        if (decision === 'grant') await this.claimMailbox(manager, referred);
        await recordPlaceChange(manager, {
          entryId,
          at: now,
          cause: decision === 'grant' ? 'referral_granted' : 'referral_revoked',
          places: next.credits * places,
          referralId,
          reasons: next.reasons,
        });
        if (next.credits > 0) await this.reach(manager, entryId, moved, now);
      }
      return toView({ ...referral, entryId: referral.referredId, email: referred.email, signedUpAt: referral.createdAt });
    });
  }

  /**
   * Ends the waiting periods that are over at `now`, in the maintenance round's transaction: each
   * referral is credited as a grant would, under its line's counter and its own row, and the rule
   * (waitingOver) is asked again there. The query only narrows it down, by the same rule in SQL.
   */
  async creditWaited(manager: EntityManager, now: Date): Promise<number> {
    const due: { id: string; product_id: string; mode: ProductScope['mode'] }[] = await manager.query(
      `SELECT r.id, r.product_id, r.mode FROM referrals r JOIN entries referred ON referred.id = r.referred_id
       WHERE r.state = 'pending' AND r.confirmed_at IS NOT NULL AND (r.credit_at IS NULL OR r.credit_at <= $1)
         AND (r.credit_after IS NULL OR referred.state = 'redeemed' OR (r.credit_after = 'invited' AND referred.state = 'invited'))
       ORDER BY r.product_id, r.mode, r.id LIMIT $2`,
      [now, CREDITS_PER_ROUND],
    );
    let credited = 0;
    const placesOf = new Map<string, number | null>();
    for (const { id, product_id: productId, mode } of due) {
      const line = `${productId}|${mode}`;
      if (!placesOf.has(line)) placesOf.set(line, await this.line.holdReferralPlaces(manager, { productId, mode }));
      const places = placesOf.get(line);
      const referral = await manager.getRepository(Referral).findOne({ where: { id, state: 'pending' }, lock: { mode: 'pessimistic_write' } });
      const referred = referral && (await manager.getRepository(EntryRecord).findOneBy({ id: referral.referredId }));
      if (!referral || !referred || places === null || places === undefined || !waitingOver(referral, referred.state, now)) continue;
      await manager.update(Referral, id, { state: 'credited', reasons: [], creditAt: null, creditAfter: null, decidedAt: now });
      const moved = await this.line.credit(manager, referral.referrerId, 1, places);
      await recordPlaceChange(manager, { entryId: referral.referrerId, at: now, cause: 'referral_credited', places, referralId: id });
      await this.reach(manager, referral.referrerId, moved, now);
      credited++;
    }
    return credited;
  }
}
