import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Clock, ENTRY_STATES, Mode, EntryState, ReferralReason, refusedCountType, SIGNUP_REFUSALS, SignupRefusal, WITHHOLDING_REASONS } from '@app/shared';
import { DataSource } from 'typeorm';
import type { ProductScope } from '../../common/scope';

/** Days shown on the overview, today (UTC) included. */
const OVERVIEW_DAYS = 30;
/** Days the bounce and complaint rates count, today (UTC) included: about the window the mail providers judge by. */
export const MAIL_RATE_DAYS = 7;

const SERIES = { 'entry.created': 'signups', 'entry.confirmed': 'confirmations', 'entry.invited': 'invitations', 'entry.redeemed': 'redemptions' } as const;
export type Series = (typeof SERIES)[keyof typeof SERIES];

export interface Overview {
  states: Record<EntryState, number>;
  /** Milestone rewards reached (entries × milestones), all time. */
  milestones: number;
  /** Each day (YYYY-MM-DD, UTC), oldest first, with its count per series. */
  days: { day: string; counts: Record<Series, number> }[];
  /** Sign-ups the forms' signals dropped on those days, by reason: counted, as nothing else of them is kept. */
  refused: Record<SignupRefusal, number>;
  /**
   * Referrals withheld and waiting for the team's review, by each reason that holds them, most first:
   * counted up to HELD_COUNTED, `more` when there are more than that.
   */
  held: { reason: ReferralReason; count: number; more: boolean }[];
  /** Over the last MAIL_RATE_DAYS: mails sent, hard bounces and complaints (daily_mail_counts); the undeliverable entries now. */
  mail: { sent: number; hardBounces: number; complaints: number; undeliverable: number };
}

/** Each reason's held referrals are counted up to this many: enough to weigh them, few enough to read at once. */
const HELD_COUNTED = 1000;

/**
 * The count of each reason's held referrals, up to one more than HELD_COUNTED, each from its own partial
 * index (migration HeldByReason1795910800000): at most that many index rows per reason, whatever the
 * list's size. Each reason is written out (they are the code's own words) so that the planner matches
 * the index's predicate, which a parameter would not.
 */
export const HELD_BY_REASON = `SELECT ${WITHHOLDING_REASONS.map(
  (reason) => `(SELECT count(*)::int FROM (SELECT FROM referrals
      WHERE product_id = $1 AND mode = $2 AND state = 'withheld' AND NOT ('revoked_by_team' = ANY (reasons)) AND '${reason}' = ANY (reasons)
      LIMIT ${HELD_COUNTED + 1}) AS held) AS ${reason}`,
).join(',\n  ')}`;

const REFUSED_TYPES = new Map(SIGNUP_REFUSALS.map((reason) => [refusedCountType(reason), reason]));

/** The overview page's figures: what only the dashboard reads, so it has no home among the API's services. */
@Injectable()
export class OverviewService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly clock: Clock,
  ) {}

  /**
   * The mode each product's link opens: live, unless live has no entry and test has some (a product
   * being tried, the demo's sample sign-ups), so that nobody lands on zeros while their data is next door.
   */
  async landingModes(productIds: string[]): Promise<Map<string, Mode>> {
    const rows = await this.db.query<{ product_id: string }[]>(
      `SELECT product_id FROM entry_counts WHERE product_id = ANY($1) GROUP BY product_id
       HAVING COALESCE(sum(pending + confirmed + invited + redeemed) FILTER (WHERE mode = 'live'), 0) = 0
          AND COALESCE(sum(pending + confirmed + invited + redeemed) FILTER (WHERE mode = 'test'), 0) > 0`,
      [productIds],
    );
    const inTest = new Set(rows.map((row) => row.product_id));
    return new Map(productIds.map((id) => [id, inTest.has(id) ? 'test' : 'live']));
  }

  /**
   * Counts of a product's entries by state, and per day what happened to them. The days count the
   * events (daily_event_counts), so an entry deleted since still counts on the day it signed up; a
   * second invitation (reinvite) has no event and is not counted again.
   */
  async load({ productId, mode }: ProductScope): Promise<Overview> {
    const now = this.clock.now();
    const first = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - (OVERVIEW_DAYS - 1)));
    const mailFirst = new Date(first.getTime() + (OVERVIEW_DAYS - MAIL_RATE_DAYS) * 86_400_000).toISOString().slice(0, 10);
    const [[kept], events, [{ milestones }], [held], [mail]] = await Promise.all([
      // Kept by the entries' triggers (migration EntryCounts1763870400000) in 16 stripes at most
      // (CounterStripes1763884800000), however long the list.
      this.db.query<Record<EntryState, number>[]>(
        `SELECT sum(pending)::int AS pending, sum(confirmed)::int AS confirmed, sum(invited)::int AS invited, sum(redeemed)::int AS redeemed
         FROM entry_counts WHERE product_id = $1 AND mode = $2`,
        [productId, mode],
      ),
      this.db.query<{ day: string; type: string; count: number }[]>(
        `SELECT to_char(day, 'YYYY-MM-DD') AS day, type, sum(count)::int AS count FROM daily_event_counts
         WHERE product_id = $1 AND mode = $2 AND day >= $3::date AND type = ANY($4) GROUP BY day, type`,
        [productId, mode, first.toISOString().slice(0, 10), [...Object.keys(SERIES), ...REFUSED_TYPES.keys()]],
      ),
      this.db.query<{ milestones: number }[]>(`SELECT count(*)::int AS milestones FROM entry_milestones WHERE product_id = $1 AND mode = $2`, [productId, mode]),
      this.db.query<Record<ReferralReason, number>[]>(HELD_BY_REASON, [productId, mode]),
      this.db.query<Overview['mail'][]>(
        `SELECT COALESCE(sum(count) FILTER (WHERE kind = 'sent'), 0)::int AS sent,
                COALESCE(sum(count) FILTER (WHERE kind = 'hard_bounce'), 0)::int AS "hardBounces",
                COALESCE(sum(count) FILTER (WHERE kind = 'complaint'), 0)::int AS complaints,
                (SELECT count(*)::int FROM entries WHERE product_id = $1 AND mode = $2 AND undeliverable_at IS NOT NULL) AS undeliverable
         FROM daily_mail_counts WHERE product_id = $1 AND mode = $2 AND day >= $3::date`,
        [productId, mode, mailFirst],
      ),
    ]);
    const days = Array.from({ length: OVERVIEW_DAYS }, (_, i) => ({
      day: new Date(first.getTime() + i * 86_400_000).toISOString().slice(0, 10),
      counts: { signups: 0, confirmations: 0, invitations: 0, redemptions: 0 },
    }));
    const byDay = new Map(days.map((day) => [day.day, day.counts]));
    const refused = Object.fromEntries(SIGNUP_REFUSALS.map((reason) => [reason, 0])) as Record<SignupRefusal, number>;
    for (const row of events) {
      const reason = REFUSED_TYPES.get(row.type);
      const counts = byDay.get(row.day);
      if (reason) refused[reason] += row.count;
      else if (counts) counts[SERIES[row.type as keyof typeof SERIES]] = row.count;
    }
    return {
      states: Object.fromEntries(ENTRY_STATES.map((state) => [state, kept?.[state] ?? 0])) as Record<EntryState, number>,
      milestones,
      days,
      refused,
      held: WITHHOLDING_REASONS.filter((reason) => held[reason] > 0)
        .map((reason) => ({ reason, count: Math.min(held[reason], HELD_COUNTED), more: held[reason] > HELD_COUNTED }))
        .sort((a, b) => b.count - a.count || Number(b.more) - Number(a.more) || (a.reason < b.reason ? -1 : 1)),
      mail,
    };
  }
}
