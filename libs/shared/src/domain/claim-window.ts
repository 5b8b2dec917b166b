/**
 * A product's claim window: an invitation not redeemed within `days` gets one reminder `reminderHours`
 * before its end, then expires, and the entry goes back into the line at its old place
 * (back_in_line), gets a new confirmation number at the end (end_of_line), or is deleted.
 */
export const CLAIM_EXPIRY_OUTCOMES = ['back_in_line', 'end_of_line', 'delete'] as const;
export type ClaimExpiry = (typeof CLAIM_EXPIRY_OUTCOMES)[number];

/** At most the invitation code's own life (SPEC.md: 30 days). */
export const MAX_CLAIM_DAYS = 30;

export interface ClaimWindow {
  /** Null: no claim window, the code lives INVITE_CODE_TTL and the entry stays invited (SPEC.md). */
  days: number | null;
  /** Null or 0: no reminder. */
  reminderHours: number | null;
}

/** What a new invitation code is given: its end, and with a claim window the window's end and the reminder's time. */
export interface CodeTimes {
  expiresAt: Date;
  /** The claim window's end (equal to expiresAt), swept by the maintenance round; null without a window. */
  claimEndsAt: Date | null;
  /** When its one reminder is due; null without one, or when it would come before the code was made. */
  remindAt: Date | null;
}

const HOUR_MS = 3_600_000;

/** A code made at `now` under the product's window; the code never outlives `codeTtlMs` (INVITE_CODE_TTL). */
export function codeTimes(window: ClaimWindow, now: Date, codeTtlMs: number): CodeTimes {
  const lifeMs = window.days ? Math.min(window.days * 24 * HOUR_MS, codeTtlMs) : codeTtlMs;
  const expiresAt = new Date(now.getTime() + lifeMs);
  if (!window.days) return { expiresAt, claimEndsAt: null, remindAt: null };
  const remindMs = lifeMs - (window.reminderHours ?? 0) * HOUR_MS;
  const remindAt = window.reminderHours && remindMs > 0 ? new Date(now.getTime() + remindMs) : null;
  return { expiresAt, claimEndsAt: expiresAt, remindAt };
}

/** Why a window cannot be set as given (the reminder must come inside it), or null. */
export function claimWindowProblem(window: ClaimWindow): string | null {
  if (window.days && window.reminderHours && window.reminderHours >= window.days * 24) {
    return `The reminder must come within the claim window: fewer than ${window.days * 24} hours before its end`;
  }
  return null;
}

/** What an invitation code awaiting its reminder is sealed for (SecretBox's purpose). */
export const REMINDER_CODES = 'waitlist invitation codes awaiting a reminder';
