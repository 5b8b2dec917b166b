import { CREDIT_AFTER, PROTECTION_LEVELS, REFERRAL_REASONS, REFERRAL_STATES, TIMESTAMP } from '@app/shared';
import { z } from 'zod';
import { listPage } from '../entries/entries.dto';

/** A sign-up through an entry's referral link, and its credit. */
export const REFERRAL = z
  .object({
    id: z.string().meta({ description: 'Id of the referral.', example: 'rfl_4c1e9a7d2b8f3e6a0d5c9b17' }),
    entryId: z.string().meta({ description: 'The entry that signed up through the link.', example: 'ent_0d4e8b1f6a2c9e3b7d5a1f08' }),
    email: z.string().meta({ description: "That entry's address.", example: 'grace@example.com' }),
    state: z.enum(REFERRAL_STATES).meta({
      description: 'credited: it counts in the referrer\'s referrals and moves it up; pending: not yet (its entry has not confirmed, or it sits out a waiting period); withheld: it does not count.',
    }),
    reasons: z.array(z.enum(REFERRAL_REASONS)).meta({
      description:
        'Why it is in its state: own_address, already_credited, disposable_domain, network_velocity, too_fast, referral_burst (withheld by a rule), not_confirmed, waiting_period (pending), revoked_by_team, granted_by_team (the team decided; the rules that had withheld it stay listed). Empty for a referral credited by the rules.',
      example: [],
    }),
    signedUpAt: TIMESTAMP.meta({ description: 'When it signed up through the link.' }),
    confirmedAt: TIMESTAMP.nullable().meta({ description: 'When its entry confirmed; null until then.' }),
    creditAt: TIMESTAMP.nullable().meta({ description: 'For a referral pending a waiting period of days: when it will be credited (within the maintenance interval). Null otherwise.' }),
  })
  .meta({ id: 'Referral', description: "A sign-up through an entry's referral link, and its credit." });
export type ReferralView = z.infer<typeof REFERRAL>;

/** A page of an entry's referrals, newest first. */
export const REFERRAL_PAGE = listPage(REFERRAL, 'ReferralPage', "A page of an entry's referrals, newest first.");
export type ReferralPage = z.infer<typeof REFERRAL_PAGE>;

/** The entry and referral ids in the path of grant and revoke. */
export const REFERRAL_ID = z.object({
  id: z.string().meta({ description: 'Id of the referrer\'s entry.', example: 'ent_5f0c2a9e4b7d1c3a8e6f9b20' }),
  referralId: z.string().meta({ description: 'Id of the referral.', example: 'rfl_4c1e9a7d2b8f3e6a0d5c9b17' }),
});

/** A threshold as a form or a flag gives it: digits, or empty for the level's default (null). */
const threshold = (label: string, min: number, max: number) =>
  z
    .string()
    .trim()
    .refine((text) => text === '' || (/^\d{1,7}$/.test(text) && Number(text) >= min && Number(text) <= max), `${label} must be a whole number from ${min} to ${max}, or empty for the level's default`)
    .transform((text) => (text === '' ? null : Number(text)));

/** Domains separated by spaces, commas or lines; @ before one is dropped. */
const domains = (label: string) =>
  z
    .string()
    .transform((text) => [...new Set(text.split(/[\s,]+/).map((domain) => domain.trim().toLowerCase().replace(/^@/, '')).filter(Boolean))])
    .refine((list) => list.length <= 1000, `${label} holds at most 1,000 domains`)
    .refine((list) => list.every((domain) => /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}$/.test(domain)), `${label} must be domains like example.com`);

/**
 * A product's referral protection as its settings form and `products update` give it, every field as
 * text: the level, and each threshold (empty: the level's default). ProductsService stores the level
 * and, in referral_rules, the thresholds that are set.
 */
export const REFERRAL_SETTINGS = z.object({
  // Left out (a form of before it had the field): unchanged.
  referralProtection: z.preprocess((value) => (value === '' ? undefined : value), z.enum(PROTECTION_LEVELS, { message: 'Referral protection must be off, standard or strict' }).optional()),
  velocityLimit: threshold('The referrals per network', 1, 100_000),
  velocityWindowHours: threshold('The network window', 1, 8760),
  tooFastSeconds: threshold('The quickest confirmation', 0, 3600),
  burstPerHour: threshold('The sign-ups per link an hour', 1, 100_000),
  waitingDays: threshold('The waiting period', 0, 365),
  waitingFor: z
    .enum(['', ...CREDIT_AFTER], { message: 'Credit may wait for confirmed, invited or redeemed' })
    .transform((value) => (value === '' ? null : value)),
  blockedDomains: domains('The blocked domains'),
  allowedDomains: domains('The allowed domains'),
});
export type ReferralSettings = z.output<typeof REFERRAL_SETTINGS>;
