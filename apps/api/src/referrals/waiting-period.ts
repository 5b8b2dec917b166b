import type { CreditAfter, EntryState } from '@app/shared';
import type { Protection } from './protection';

export interface WaitingPeriod {
  /** Credited from then on (null: no days to wait)… */
  creditAt: Date | null;
  /** …once the referred entry is invited or has redeemed (null: confirmed is enough). */
  creditAfter: Exclude<CreditAfter, 'confirmed'> | null;
}

/** The waiting period of a referral confirmed at `confirmedAt`, or null when its credit need not wait. */
export function waitingPeriod(confirmedAt: Date, protection: Pick<Protection, 'waitingDays' | 'waitingFor'>): WaitingPeriod | null {
  const creditAfter = protection.waitingFor === 'confirmed' ? null : protection.waitingFor;
  if (protection.waitingDays <= 0 && !creditAfter) return null;
  return { creditAt: protection.waitingDays > 0 ? new Date(confirmedAt.getTime() + protection.waitingDays * 86_400_000) : null, creditAfter };
}

/** How far an entry has got, for creditAfter: a redeemed entry was invited too. */
const PROGRESS: Record<EntryState, number> = { pending: 0, confirmed: 1, invited: 2, redeemed: 3 };

/** Whether a waiting period is over at `now` for a referred entry in `state`. */
export function waitingOver(period: WaitingPeriod, state: EntryState, now: Date): boolean {
  const daysOver = period.creditAt === null || period.creditAt.getTime() <= now.getTime();
  return daysOver && (period.creditAfter === null || PROGRESS[state] >= PROGRESS[period.creditAfter]);
}
