import type { Mode } from './modes';

/**
 * The vocabulary of referral credit, which the api's rules (apps/api/src/referrals) and the stored rows
 * share. Only credited referrals move their referrer up and count in Entry.referrals.
 */

export const REFERRAL_STATES = ['credited', 'pending', 'withheld'] as const;
export type ReferralState = (typeof REFERRAL_STATES)[number];

/** Why a referral is in its state; a referral carries each reason that applies, in this order. */
export const REFERRAL_REASONS = [
  'own_address',
  'already_credited',
  'disposable_domain',
  'network_velocity',
  'too_fast',
  'referral_burst',
  'not_confirmed',
  'waiting_period',
  'revoked_by_team',
  'granted_by_team',
] as const;
export type ReferralReason = (typeof REFERRAL_REASONS)[number];

/** The reasons a rule withholds a referral for at its confirmation (the others: pending, or the team's decision). */
export const WITHHOLDING_REASONS = REFERRAL_REASONS.filter((reason) => !['not_confirmed', 'waiting_period', 'revoked_by_team', 'granted_by_team'].includes(reason));

/** How hard a product checks its referrals: off keeps SPEC.md's rule (a confirmed sign-up through the link counts). */
export const PROTECTION_LEVELS = ['off', 'standard', 'strict'] as const;
export type ProtectionLevel = (typeof PROTECTION_LEVELS)[number];

/** A waiting period may also wait for the referred entry to be invited, or to redeem. */
export const CREDIT_AFTER = ['confirmed', 'invited', 'redeemed'] as const;
export type CreditAfter = (typeof CREDIT_AFTER)[number];

/** What changed an entry's place or credit (its place history). */
export const PLACE_CAUSES = [
  'joined',
  'moved_up',
  'referral_credited',
  'referral_held',
  'referral_withheld',
  'referral_granted',
  'referral_revoked',
  'milestone',
  'referral_places_changed',
  'invitation_expired',
] as const;
export type PlaceCause = (typeof PLACE_CAUSES)[number];

/** Where a product shows its leaderboard of referrers: nowhere (SPEC.md's default), or in one mode or both. */
export const LEADERBOARD_SETTINGS = ['off', 'test', 'live', 'both'] as const;
export type LeaderboardSetting = (typeof LEADERBOARD_SETTINGS)[number];

/** Whether a product's leaderboard is shown in a mode. */
export const leaderboardShows = (setting: LeaderboardSetting, mode: Mode): boolean => setting === 'both' || setting === mode;

/** A milestone reward: reaching `referrals` credited referrals earns its name, `places` more and a line for the person. */
export interface Milestone {
  referrals: number;
  name: string;
  places: number;
  message: string | null;
  /** Its name and line in other languages, by locale, each optional; absent: the words above in every language. */
  labels?: Partial<Record<string, { name?: string; message?: string }>>;
}

/** A milestone's name and line for a visitor of this locale, else the default words. */
export function milestoneWords(milestone: Pick<Milestone, 'name' | 'message' | 'labels'>, locale: string): { name: string; message: string | null } {
  const own = milestone.labels?.[locale];
  return { name: own?.name || milestone.name, message: own?.message || milestone.message };
}

/** A product defines at most this many milestones. */
export const MAX_MILESTONES = 10;
