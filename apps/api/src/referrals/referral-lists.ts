import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { EntryRecord, Milestone } from '@app/shared';
import { DataSource } from 'typeorm';
import { ApiError } from '../common/api-error';
import type { ProductScope } from '../common/scope';
import { ListCursors } from '../entries/cursor';
import { notFound } from '../entries/entries.service';
import type { EntryListQuery } from '../entries/entries.dto';
import type { ReferralPage, ReferralView } from './referrals.dto';

/** A milestone an entry reached, and when. */
export interface ReachedMilestone extends Milestone {
  reachedAt: Date;
}

/** A withheld referral on the product's review page. */
export interface ReferralToReview extends ReferralView {
  referrerId: string;
  referrerEmail: string;
}

/** A referral's row with the addresses of its entries, as the lists read it. */
const REFERRAL_COLUMNS = `r.id, r.referred_id AS "entryId", referred.email, r.state, r.reasons, r.created_at AS "signedUpAt",
  r.confirmed_at AS "confirmedAt", r.credit_at AS "creditAt"`;
type ReferralRow = Omit<ReferralView, 'signedUpAt' | 'confirmedAt' | 'creditAt'> & { signedUpAt: Date; confirmedAt: Date | null; creditAt: Date | null };

/** What the API, the dashboard and the status page read of referrals and milestones; ReferralsService changes them. */
@Injectable()
export class ReferralLists {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly cursors: ListCursors,
  ) {}

  /** An entry's referrals, newest first, a page at a time; 404 outside the scope. */
  async list(scope: ProductScope, entryId: string, query: EntryListQuery): Promise<ReferralPage> {
    const context = `referrals|${scope.productId}|${scope.mode}|${entryId}`;
    const after = this.cursors.start(query.cursor, context);
    if (!(await this.db.getRepository(EntryRecord).existsBy({ id: entryId, productId: scope.productId, mode: scope.mode }))) throw notFound();
    const rows: ReferralRow[] = await this.db.query(
      `SELECT ${REFERRAL_COLUMNS} FROM referrals r JOIN entries referred ON referred.id = r.referred_id
       WHERE r.referrer_id = $1 AND ($2::timestamptz IS NULL OR (r.created_at, r.id) < ($2, $3))
       ORDER BY r.created_at DESC, r.id DESC LIMIT $4`,
      [entryId, after?.createdAt ?? null, after?.id ?? '', query.limit + 1],
    );
    return this.cursors.page(rows, query.limit, context, (row) => ({ createdAt: row.signedUpAt, id: row.id }), toView);
  }

  /** One referral of an entry; 404 outside the scope. */
  async find(scope: ProductScope, entryId: string, referralId: string): Promise<ReferralView> {
    const [row]: ReferralRow[] = await this.db.query(
      `SELECT ${REFERRAL_COLUMNS} FROM referrals r JOIN entries referred ON referred.id = r.referred_id
       WHERE r.id = $1 AND r.referrer_id = $2 AND r.product_id = $3 AND r.mode = $4`,
      [referralId, entryId, scope.productId, scope.mode],
    );
    if (!row) throw referralNotFound();
    return toView(row);
  }

  /**
   * How many of an entry's confirmed referrals are still being checked, as the person is told: held
   * for a waiting period or withheld and not yet decided by the team (a revoke is final and not shown).
   */
  async beingChecked(entryId: string): Promise<number> {
    const [{ count }]: { count: number }[] = await this.db.query(
      `SELECT count(*)::int AS count FROM referrals
       WHERE referrer_id = $1 AND confirmed_at IS NOT NULL AND state <> 'credited' AND NOT ('revoked_by_team' = ANY (reasons))`,
      [entryId],
    );
    return count;
  }

  /** The milestones an entry reached, first reached first, as they were when reached. */
  async milestonesOf(entryId: string): Promise<ReachedMilestone[]> {
    return this.db.query(
      `SELECT referrals, name, places, message, reached_at AS "reachedAt" FROM entry_milestones WHERE entry_id = $1 ORDER BY referrals`,
      [entryId],
    );
  }

  /** The product's withheld referrals the team has not revoked yet, newest first: the dashboard's review. */
  async toReview(scope: ProductScope, limit: number): Promise<ReferralToReview[]> {
    const rows: (ReferralRow & { referrerId: string; referrerEmail: string })[] = await this.db.query(
      `SELECT ${REFERRAL_COLUMNS}, r.referrer_id AS "referrerId", referrer.email AS "referrerEmail"
       FROM referrals r JOIN entries referred ON referred.id = r.referred_id JOIN entries referrer ON referrer.id = r.referrer_id
       WHERE r.product_id = $1 AND r.mode = $2 AND r.state = 'withheld' AND NOT ('revoked_by_team' = ANY (r.reasons))
       ORDER BY r.confirmed_at DESC, r.id DESC LIMIT $3`,
      [scope.productId, scope.mode, limit],
    );
    return rows.map((row) => ({ ...toView(row), referrerId: row.referrerId, referrerEmail: row.referrerEmail }));
  }
}

export const referralNotFound = () => new ApiError('not_found', 'No referral with this id for this entry.', { param: 'referralId' });

export function toView(row: ReferralRow): ReferralView {
  const iso = (date: Date | null) => (date ? date.toISOString() : null);
  return {
    id: row.id,
    entryId: row.entryId,
    email: row.email,
    state: row.state,
    reasons: row.reasons,
    signedUpAt: row.signedUpAt.toISOString(),
    confirmedAt: iso(row.confirmedAt),
    creditAt: iso(row.creditAt),
  };
}
