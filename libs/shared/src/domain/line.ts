/**
 * The line: confirmed entries not invited yet, in line order. An entry's line key (entries.line_key) is
 * its confirmation sequence number minus the places it gained: referral places × referrals + moved-up
 * places. At equal keys an entry that was moved up (by a referral or a move-up call) goes first, so that
 * every place gained shows; then the earlier confirmation. Moved up ⇔ its key is below its sequence number.
 */

export interface LineStanding {
  confirmationSeq: number;
  referrals: number;
  movedUp: number;
}

/** The line key of an entry, with the product's referral places. */
export function lineKey(entry: LineStanding, referralPlaces: number): number {
  return entry.confirmationSeq - referralPlaces * entry.referrals - entry.movedUp;
}

/** lineKey in SQL over the entries table, with the referral places given as `referralPlaces` (a parameter like $2). */
export const LINE_KEY_SQL = (referralPlaces: string) => `confirmation_seq - ${referralPlaces} * referrals - moved_up`;

export interface InLine {
  lineKey: number;
  confirmationSeq: number;
}

/** Where an entry stands in line order: these values compared left to right, smallest first. */
export function lineOrder(entry: InLine): [lineKey: number, notMovedUp: boolean, confirmationSeq: number] {
  return [entry.lineKey, entry.lineKey === entry.confirmationSeq, entry.confirmationSeq];
}

/**
 * lineOrder in SQL, for every query that orders, takes or counts the line: `ORDER BY ${IN_LINE_ORDER}`, or
 * `(${IN_LINE_ORDER}) < ($1, $2, $3)` with lineOrder's values. It is the entries_line index's order, so
 * the front of the line is an index scan.
 */
export const IN_LINE_ORDER = 'line_key, (line_key = confirmation_seq), confirmation_seq';

/**
 * Line keys per stretch of the line_buckets table, which keeps the waiting entries of each stretch so that
 * a place in line adds up the stretches before its entry's and counts only within its own. The
 * migration EntryCounts1763870400000 fixes this size in SQL (line_bucket): change both together.
 */
export const LINE_BUCKET_KEYS = 1024;

/** The stretch of the line a line key falls in (SQL: line_bucket(line_key)); keys below zero too. */
export function lineBucket(lineKey: number): number {
  return Math.floor(lineKey / LINE_BUCKET_KEYS);
}

/** The invitation rate behind an estimated wait is measured over this many days (UTC days, today included). */
export const WAIT_WINDOW_DAYS = 30;

/**
 * Estimated days until the entry at `place` is invited, at the product's invitation rate of the last
 * WAIT_WINDOW_DAYS days: place ÷ (invitations in the window ÷ days of the window), rounded up to
 * whole days. Null while the window holds no invitation (not enough data yet).
 */
export function estimatedWaitDays(place: number, invitedInWindow: number): number | null {
  if (invitedInWindow <= 0) return null;
  return Math.ceil((place * WAIT_WINDOW_DAYS) / invitedInWindow);
}
