import { REFERRAL_REASONS, ReferralReason, ReferralState } from '@app/shared';

export interface Credit {
  state: ReferralState;
  reasons: ReferralReason[];
}

/** Reasons in one order (REFERRAL_REASONS), each once. */
const inOrder = (reasons: Iterable<ReferralReason>): ReferralReason[] => REFERRAL_REASONS.filter((reason) => new Set(reasons).has(reason));

/**
 * A referral's credit when its entry confirms: withheld with every signal that holds, else pending
 * while it has a waiting period to sit out, else credited.
 */
export function creditAtConfirmation(signals: ReferralReason[], waits: boolean): Credit {
  if (signals.length > 0) return { state: 'withheld', reasons: inOrder(signals) };
  return waits ? { state: 'pending', reasons: ['waiting_period'] } : { state: 'credited', reasons: [] };
}

export type TeamDecision = 'grant' | 'revoke';

/** Reasons a team's decision replaces: its own earlier decisions and what the referral was waiting for. */
const SUPERSEDED: ReferralReason[] = ['granted_by_team', 'revoked_by_team', 'waiting_period', 'not_confirmed'];

/**
 * A team's grant or revoke of a confirmed referral: credited (granted_by_team) or withheld
 * (revoked_by_team), keeping the signals that had withheld it; `credits` is what the referrer's count
 * changes by. Null when it changes nothing (granting a credited referral, revoking a revoked one).
 */
export function teamDecision(current: Credit, decision: TeamDecision): (Credit & { credits: -1 | 0 | 1 }) | null {
  if (decision === 'grant' && current.state === 'credited') return null;
  if (decision === 'revoke' && current.reasons.includes('revoked_by_team')) return null;
  const signals = current.reasons.filter((reason) => !SUPERSEDED.includes(reason));
  if (decision === 'grant') return { state: 'credited', reasons: inOrder([...signals, 'granted_by_team']), credits: 1 };
  return { state: 'withheld', reasons: inOrder([...signals, 'revoked_by_team']), credits: current.state === 'credited' ? -1 : 0 };
}
