/** The window of the burst cap: the hour before a sign-up through a referral link. */
export const BURST_WINDOW_MS = 3_600_000;

/**
 * Whether a sign-up through a referral link came in a burst: `earlier` sign-ups through the same link
 * in the hour before it already, and at most `limit` an hour count (0: no cap). Sign-ups are counted,
 * not confirmations, so the sign-ups of a burst are held whatever order they confirm in.
 */
export function inBurst(earlier: number, limit: number): boolean {
  return limit > 0 && earlier >= limit;
}
