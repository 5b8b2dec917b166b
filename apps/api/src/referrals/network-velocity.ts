/**
 * Whether a referral is one too many from its network: `earlier` confirmed referrals of the same
 * referrer from the same network within the window already, and at most `limit` may be (0: no limit).
 */
export function overVelocity(earlier: number, limit: number): boolean {
  return limit > 0 && earlier >= limit;
}
