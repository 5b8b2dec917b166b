import type { components, operations } from './openapi.js';

// The client's names for the API's shapes. Each is the generated type of docs/openapi.json (openapi.ts,
// made by `npm run client:types`), whose doc comments come from the API's own schemas: a change of the
// contract reaches the client through them, and a test fails while openapi.ts is behind the document.

type Schemas = components['schemas'];
type Query<Operation extends keyof operations> = NonNullable<operations[Operation]['parameters']['query']>;
type JsonBody<Operation extends keyof operations> = operations[Operation]['requestBody'] extends { content: { 'application/json': infer Body } } ? Body : never;

export type Entry = Schemas['Entry'];
export type EntryState = Entry['state'];
/** Keys, entries, events and endpoints belong to one mode. */
export type Mode = Schemas['Event']['mode'];

export type EntryProfile = Schemas['EntryProfile'];
/** An answer to a sign-up question: text (short_text, long_text, single_choice), the choices ticked (multiple_choice), or a checkbox's true or false. */
export type Answer = EntryProfile['answers'][string];

export type EntryPage = Schemas['EntryPage'];
export type ListEntriesParams = Query<'listEntries'>;
/** Filters of the list; `email` finds the one entry of that address (or none). */
export type EntryFilter = Omit<ListEntriesParams, 'cursor'>;

export type InviteNextResult = Schemas['InviteNextResult'];
export type PlaceInLine = Schemas['Place'];

export type Referral = Schemas['Referral'];
export type ReferralState = Referral['state'];
export type ReferralReason = Referral['reasons'][number];
export type ReferralPage = Schemas['ReferralPage'];

export type PlaceChange = Schemas['PlaceChange'];
export type PlaceCause = PlaceChange['cause'];
export type PlaceHistory = Schemas['PlaceHistory'];
/** A page at a time: the `nextCursor` of the previous page. */
export type PageParams = Query<'getPlaceHistory'>;

export type CodeCheck = Schemas['CodeCheck'];

export type Milestone = Schemas['Milestone'];
export type Bounce = Schemas['Bounce'];
/** `webhook.test` comes only from the dashboard's "send test event", with a made-up entry. */
export type WebhookEventType = Schemas['Event']['type'];
export type EntryEventType = Exclude<WebhookEventType, 'webhook.test'>;
/**
 * A webhook delivery's body, typed by its `type`. `data.entry` is the entry as it is after the change;
 * for entry.deleted and entry.unsubscribed, as it was; for entry.invitation_expired, as after the
 * product's outcome (confirmed, back in line), or as it was when the outcome deletes it (entry.deleted
 * follows).
 */
export type WebhookEvent<T extends WebhookEventType = WebhookEventType> = T extends WebhookEventType ? Schemas['Event'] & { type: T } : never;

export type NewRelease = JsonBody<'createRelease'>;
/** The fields to change; `paused` pauses (true) or resumes (false). */
export type ReleaseChanges = JsonBody<'updateRelease'>;
export type Release = Schemas['Release'];
export type ReleaseRun = Schemas['ReleaseRun'];

/**
 * What an import reads of a row. The API takes `mapping` as JSON in a query parameter, a string to
 * the document, so these names are the client's own (docs/api.md lists them).
 */
export type ImportField = 'email' | 'createdAt' | 'referralCode' | 'referredBy' | 'referralCount' | 'state' | 'id';

/** Options of an import; every one may be left out. */
export type ImportOptions = Omit<Query<'importEntries'>, 'mapping'> & {
  /** For a file that is not a known tool's export: which column holds which field, e.g. { 'Email Address': 'email' }. */
  mapping?: Record<string, ImportField>;
};

export type ImportReport = Schemas['ImportReport'];
