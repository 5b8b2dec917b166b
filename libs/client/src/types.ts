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

/** An answer to a sign-up question: text (short_text, long_text, single_choice), the choices ticked (multiple_choice), or a checkbox's true or false. */
export type Answer = string | string[] | boolean;

/** What is known of the person behind an entry: its language, its sign-up's answers by question key, and where it came from ({} when nothing is known). */
export interface EntryProfile {
  id: string;
  /** The language of its mails and hosted pages. */
  locale: 'en' | 'de' | 'fr' | 'es';
  answers: Record<string, Answer>;
  attribution: {
    utm_source?: string;
    utm_medium?: string;
    utm_campaign?: string;
    utm_term?: string;
    utm_content?: string;
    /** The page before the sign-up page. */
    referrer?: string;
    /** The sign-up page. */
    landing_page?: string;
  };
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

/** Whether a referral counts: only credited ones move the referrer up and count in `referrals`. */
export type ReferralState = 'credited' | 'pending' | 'withheld';

/** Why a referral is in its state: the rules that withheld it, what it waits for, the team's decision. */
export type ReferralReason =
  | 'own_address'
  | 'already_credited'
  | 'disposable_domain'
  | 'network_velocity'
  | 'too_fast'
  | 'referral_burst'
  | 'not_confirmed'
  | 'waiting_period'
  | 'revoked_by_team'
  | 'granted_by_team';

/** A sign-up through an entry's referral link, and its credit. */
export interface Referral {
  id: string;
  /** The entry that signed up through the link, and its address. */
  entryId: string;
  email: string;
  state: ReferralState;
  reasons: ReferralReason[];
  signedUpAt: string;
  confirmedAt: string | null;
  /** For a referral pending a waiting period of days: when it will be credited. */
  creditAt: string | null;
}

/** A page of an entry's referrals, newest first. */
export interface ReferralPage {
  data: Referral[];
  nextCursor: string | null;
}

export type PlaceCause = 'joined' | 'moved_up' | 'referral_credited' | 'referral_held' | 'referral_withheld' | 'referral_granted' | 'referral_revoked' | 'milestone' | 'referral_places_changed' | 'invitation_expired';

/** One change of an entry's place or credit. */
export interface PlaceChange {
  at: string;
  cause: PlaceCause;
  /** Places gained (negative: lost). */
  places: number;
  /** For `joined`, the place it joined the line at. */
  place: number | null;
  referralId: string | null;
  reasons: ReferralReason[];
}

/** A page of an entry's place history, newest first. */
export interface PlaceHistory {
  data: PlaceChange[];
  nextCursor: string | null;
}

/** A page at a time: the `nextCursor` of the previous page. */
export interface PageParams {
  limit?: number;
  cursor?: string;
}

/** The answer of verify and redeem: a valid code names its address; an invalid one says nothing more. */
export type CodeCheck = { valid: true; email: string } | { valid: false };

export type EntryEventType =
  | 'entry.created'
  | 'entry.confirmed'
  | 'entry.invited'
  | 'entry.redeemed'
  | 'entry.unsubscribed'
  | 'entry.deleted'
  | 'entry.milestone'
  | 'entry.invitation_expired'
  | 'entry.bounced';

/** A milestone reward an entry reached, as `entry.milestone` carries it. */
export interface Milestone {
  /** The credited referrals that reach it. */
  referrals: number;
  name: string;
  /** Places it moved the entry up. */
  places: number;
  /** The team's line of text for the person. */
  message: string | null;
}

/** What made an entry's address undeliverable, as `entry.bounced` carries it. */
export interface Bounce {
  kind: 'hard_bounce' | 'soft_bounce';
  /** When the mail provider saw the bounce that did it. */
  at: string;
}

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
      /**
       * The entry as it is after the change; for entry.deleted and entry.unsubscribed, as it was. For
       * entry.invitation_expired, as after the product's outcome (confirmed, back in line), or as it
       * was when the outcome deletes it (entry.deleted follows).
       */
      /** For entry.milestone, `milestone` is the milestone reached; for entry.bounced, `bounce` the bounce. */
      data: { entry: Entry; milestone?: Milestone; bounce?: Bounce };
    }
  : never;

/** What a release is: invite `count` from the front of the line at every tick of `pattern` read in `timeZone`. */
export interface NewRelease {
  /** 1 to 1,000. */
  count: number;
  /** A cron expression: five fields, or six with seconds first. */
  pattern: string;
  /** An IANA time zone, such as Europe/Berlin. */
  timeZone: string;
  paused?: boolean;
}

/** The fields to change; `paused` pauses (true) or resumes (false). */
export type ReleaseChanges = Partial<NewRelease>;

export interface Release {
  id: string;
  mode: Mode;
  count: number;
  pattern: string;
  timeZone: string;
  paused: boolean;
  /** The next run (UTC); null while paused. */
  nextRunAt: string | null;
  /** The same time in the release's zone, with its offset. */
  nextRunLocal: string | null;
  createdAt: string;
}

/** One run of a release: what it was asked, who was invited, whose mail failed (still in line), what the capacity cap left out. */
export interface ReleaseRun {
  id: string;
  releaseId: string;
  /** The tick it ran for; null for a run now. */
  tickAt: string | null;
  tickLocal: string | null;
  startedAt: string;
  finishedAt: string | null;
  asked: number;
  invited: number;
  failed: number;
  skippedForCapacity: number;
  /** How many of asked the product's mail quota left for a later run; only present when it left some out. */
  skippedForQuota?: number;
  failedEntryIds: string[];
  /** Why it stopped before it was done; null when it ran. */
  error: string | null;
}

/** What an import reads of a row. */
export type ImportField = 'email' | 'createdAt' | 'referralCode' | 'referredBy' | 'referralCount' | 'state' | 'id';

/** Options of an import; every one may be left out. */
export interface ImportOptions {
  /** Read the whole file and answer what would happen, writing nothing. */
  dryRun?: boolean;
  /** A dry run's checksum: the import writes the rows that dry run read, read as it read them, or nothing (400, param checksum). */
  checksum?: string;
  /** For a file that is not a known tool's export: which column holds which field, e.g. { 'Email Address': 'email' }. */
  mapping?: Record<string, ImportField>;
  /** The state of a row whose file gives none (confirmed when left out). */
  state?: 'confirmed' | 'pending';
  /** Mail a confirmation link to every entry imported as pending. */
  confirmationMails?: boolean;
  /** Emit entry.created (and entry.confirmed) for every imported entry. */
  events?: boolean;
}

/** What an import did, or with dryRun would do: counts over every row, and the first 1,000 rows and bad rows. */
export interface ImportReport {
  dryRun: boolean;
  /** The export the header row was recognised as, or custom. */
  format: string;
  rows: number;
  created: number;
  confirmed: number;
  pending: number;
  existing: number;
  suppressed: number;
  invalid: number;
  referralCodesKept: number;
  referralsLinked: number;
  lines: { line: number; email: string | null; outcome: 'create' | 'existing' | 'suppressed' | 'invalid' }[];
  problems: { line: number; reason: 'invalid_email' | 'invalid_time' | 'invalid_referral_count' | 'invalid_state' | 'unsubscribed' | 'duplicate'; message: string }[];
  /** The rows read and the mapping and state that read them, hashed: pass it as `checksum` to import what this dry run showed. */
  checksum: string;
}
