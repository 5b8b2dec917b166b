import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { ChallengeMode } from '../../domain/challenges';
import type { ClaimExpiry } from '../../domain/claim-window';
import type { Locale } from '../../i18n/locales';
import type { Question } from '../../domain/questions';
import type { CreditAfter, LeaderboardSetting, Milestone, ProtectionLevel } from '../../domain/referrals';

/** The team's own referral thresholds, each over its protection level's default (apps/api/src/referrals/protection.ts). */
export interface ReferralRules {
  velocityLimit?: number;
  velocityWindowHours?: number;
  tooFastSeconds?: number;
  waitingDays?: number;
  waitingFor?: CreditAfter;
  /** More sign-ups through one referral link within an hour than this are withheld as referral_burst. */
  burstPerHour?: number;
  blockedDomains?: string[];
  allowedDomains?: string[];
}

@Entity('products')
export class Product {
  @PrimaryColumn('text') id!: string;
  @Column('text') name!: string;
  @Column('text', { name: 'invite_url', nullable: true }) inviteUrl!: string | null;
  @Column('text', { name: 'signup_url', nullable: true }) signupUrl!: string | null;
  @Column('int', { name: 'referral_places', default: 1 }) referralPlaces!: number;
  /** The name mails are sent under; the product's name when unset. */
  @Column('text', { name: 'sender_name', nullable: true }) senderName!: string | null;
  @Column('timestamp with time zone', { name: 'created_at', precision: 3 }) createdAt!: Date;
  /** off: every confirmed referral counts (SPEC.md); standard and strict check them first. */
  @Column('text', { name: 'referral_protection', default: 'off' }) referralProtection!: ProtectionLevel;
  @Column('jsonb', { name: 'referral_rules', default: {} }) referralRules!: ReferralRules;
  /** The modes whose leaderboard of referrers is public; off (the default) shows none. */
  @Column('text', { default: 'off' }) leaderboard!: LeaderboardSetting;
  @Column('int', { name: 'leaderboard_size', default: 10 }) leaderboardSize!: number;
  /** Milestone rewards by referrals, ascending; none by default. */
  @Column('jsonb', { default: [] }) milestones!: Milestone[];
  /** Days an invitation may wait to be redeemed (1–30); null (the default): no claim window. */
  @Column('int', { name: 'claim_window_days', nullable: true }) claimWindowDays!: number | null;
  /** Hours before the window's end that its one reminder goes out; null or 0: none. */
  @Column('int', { name: 'claim_reminder_hours', nullable: true }) claimReminderHours!: number | null;
  /** What becomes of an entry whose claim window ended. */
  @Column('text', { name: 'claim_expiry', default: 'back_in_line' }) claimExpiry!: ClaimExpiry;
  /** At most this many entries of a mode invited and not redeemed, with a code not expired; null (the default): no cap. */
  @Column('int', { nullable: true }) capacity!: number | null;
  /** At most this many invitation mails of the product (both modes) per clock hour (UTC), which releases keep to; null: no quota. */
  @Column('int', { name: 'mail_quota_hourly', nullable: true }) mailQuotaHourly!: number | null;
  /** The same per day (UTC). */
  @Column('int', { name: 'mail_quota_daily', nullable: true }) mailQuotaDaily!: number | null;
  /** The language of a sign-up that names none (no locale field, no Accept-Language we speak). */
  @Column('text', { name: 'default_locale', default: 'en' }) defaultLocale!: Locale;
  /** What the sign-up asks, in order; none by default. */
  @Column('jsonb', { default: [] }) questions!: Question[];
  /** The forms' hidden field a person never fills; a sign-up that fills it is dropped. Off by default. */
  @Column('boolean', { name: 'signup_honeypot', default: false }) signupHoneypot!: boolean;
  /** A form's sign-up sooner than this after the form was shown is dropped; 0 (the default): never. */
  @Column('int', { name: 'signup_min_fill_seconds', default: 0 }) signupMinFillSeconds!: number;
  /** The proof of work a public sign-up must bring (docs/decisions/bot-defence.md); off (the default): none. */
  @Column('text', { name: 'challenge_mode', default: 'off' }) challengeMode!: ChallengeMode;
  /** The challenge's largest number: the solver's work, half of it on average. */
  @Column('int', { name: 'challenge_difficulty', default: 50_000 }) challengeDifficulty!: number;
}
