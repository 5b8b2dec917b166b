/** Where an entry is: it confirms its address, is invited by mail, and its code is redeemed. */
export type EntryState = 'pending' | 'confirmed' | 'invited' | 'redeemed';

/** Keys, entries, events and endpoints belong to one mode. */
export type Mode = 'live' | 'test';

/** One address on one product's waitlist. Timestamps are ISO 8601 in UTC with milliseconds. */
export interface Entry {
  id: string;
  /** Trimmed and lowercased. */
  email: string;
  state: EntryState;
  /** When the address signed up, or last asked for a new confirmation mail. */
  createdAt: string;
  confirmedAt: string | null;
  /** The first invitation; sending it again does not move it. */
  invitedAt: string | null;
  redeemedAt: string | null;
  /** Set once the entry confirms: sign-ups through `?ref=<referralCode>` that confirm move it up. */
  referralCode: string | null;
  /** Sign-ups through the referral link that confirmed and counted. */
  referrals: number;
}

/** A page of entries, newest first; `nextCursor` is null on the last page. */
export interface EntryPage {
  data: Entry[];
  nextCursor: string | null;
}

/** Filters of the list; `email` finds the one entry of that address (or none). */
export interface EntryFilter {
  state?: EntryState;
  email?: string;
  /** Entries per page, 1 to 100 (20 when left out). */
  limit?: number;
}

export interface ListEntriesParams extends EntryFilter {
  /** The `nextCursor` of the previous page. */
  cursor?: string;
}

/** Ids in line order: `failed` are those whose mail could not be handed over; they keep their place. */
export interface InviteNextResult {
  invited: string[];
  failed: string[];
}

/** A waiting entry's place (1 is next), the line's length, and the wait in days (null without data yet). */
export interface PlaceInLine {
  place: number;
  lineLength: number;
  estimatedWaitDays: number | null;
}

/** The answer of verify and redeem: a valid code names its address; an invalid one says nothing more. */
export type CodeCheck = { valid: true; email: string } | { valid: false };

export type EntryEventType =
  | 'entry.created'
  | 'entry.confirmed'
  | 'entry.invited'
  | 'entry.redeemed'
  | 'entry.unsubscribed'
  | 'entry.deleted';

/** `webhook.test` comes only from the dashboard's "send test event", with a made-up entry. */
export type WebhookEventType = EntryEventType | 'webhook.test';

/** A webhook delivery's body; `id` is the same on every attempt, so receivers skip repeats by it. */
export type WebhookEvent<T extends WebhookEventType = WebhookEventType> = T extends WebhookEventType
  ? {
      id: string;
      type: T;
      createdAt: string;
      mode: Mode;
      productId: string;
      /** The entry as it is after the change; for entry.deleted and entry.unsubscribed, as it was. */
      data: { entry: Entry };
    }
  : never;
