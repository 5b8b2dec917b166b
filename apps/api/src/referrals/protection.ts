import type { CreditAfter, ProtectionLevel, ReferralRules } from '@app/shared';

/** Every threshold a product's referral protection applies; 0 turns a check off. */
export interface Protection {
  /** Withhold referrals from addresses of the maintained list of disposable domains. */
  disposableDomains: boolean;
  /** Domains withheld as disposable whatever the list says, and domains the list may not withhold. */
  blockedDomains: string[];
  allowedDomains: string[];
  /** More than this many confirmed referrals of one referrer from one network within the window are withheld. */
  velocityLimit: number;
  velocityWindowHours: number;
  /** A confirmation sooner than this after its mail's handover is withheld. */
  tooFastSeconds: number;
  /** A sign-up through a link that already brought this many within the hour before it is withheld (0: no cap). */
  burstPerHour: number;
  /** Credit only this many days after the confirmation… */
  waitingDays: number;
  /** …and only once the referred entry got this far. */
  waitingFor: CreditAfter;
}

/**
 * What each level checks (docs/decisions/referrals.md says why each number). off checks only what SPEC.md's rule
 * always did (a mailbox counts once, never for itself), whatever the team set: the thresholds apply
 * from standard on. The burst cap is set by the team alone (0 at every level), so that no product's
 * level withholds more than it did before the cap existed.
 */
export const LEVEL_DEFAULTS: Record<ProtectionLevel, Protection> = {
  off: { disposableDomains: false, blockedDomains: [], allowedDomains: [], velocityLimit: 0, velocityWindowHours: 24, tooFastSeconds: 0, burstPerHour: 0, waitingDays: 0, waitingFor: 'confirmed' },
  standard: { disposableDomains: true, blockedDomains: [], allowedDomains: [], velocityLimit: 5, velocityWindowHours: 24, tooFastSeconds: 5, burstPerHour: 0, waitingDays: 0, waitingFor: 'confirmed' },
  strict: { disposableDomains: true, blockedDomains: [], allowedDomains: [], velocityLimit: 3, velocityWindowHours: 72, tooFastSeconds: 10, burstPerHour: 0, waitingDays: 3, waitingFor: 'confirmed' },
};

/** A product's protection: its level's defaults, with the team's own thresholds over them (none while off). */
export function protectionOf(level: ProtectionLevel, rules: ReferralRules): Protection {
  if (level === 'off') return LEVEL_DEFAULTS.off;
  const set = Object.fromEntries(Object.entries(rules).filter(([, value]) => value !== undefined && value !== null));
  return { ...LEVEL_DEFAULTS[level], ...set };
}

/** The thresholds the team sets, by their names in the settings form and in referral_rules. */
type RuleChanges = { [K in keyof ReferralRules]?: ReferralRules[K] | null };

/** The team's thresholds after a change: one left out stays, a null or empty one is the level's default again. */
export function changedRules(rules: ReferralRules, changes: RuleChanges): ReferralRules {
  const given = Object.entries(changes).filter(([, value]) => value !== undefined);
  const merged: Record<string, unknown> = { ...rules, ...Object.fromEntries(given) };
  return Object.fromEntries(Object.entries(merged).filter(([, value]) => value !== undefined && value !== null && !(Array.isArray(value) && value.length === 0)));
}

/** A product's protection as the settings form shows it: the level, and the team's own thresholds (empty: the level's default). */
export function rulesAsText(rules: ReferralRules): Record<keyof ReferralRules, string> {
  return {
    velocityLimit: String(rules.velocityLimit ?? ''),
    velocityWindowHours: String(rules.velocityWindowHours ?? ''),
    tooFastSeconds: String(rules.tooFastSeconds ?? ''),
    burstPerHour: String(rules.burstPerHour ?? ''),
    waitingDays: String(rules.waitingDays ?? ''),
    waitingFor: rules.waitingFor ?? '',
    blockedDomains: (rules.blockedDomains ?? []).join('\n'),
    allowedDomains: (rules.allowedDomains ?? []).join('\n'),
  };
}
