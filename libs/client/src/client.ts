import type { components } from './openapi.js';
import { Requests, type IdempotentRequestOptions, type RequestOptions } from './requests.js';
import type { CodeCheck, Entry, EntryFilter, EntryPage, EntryProfile, ImportOptions, ImportReport, InviteNextResult, ListEntriesParams, NewRelease, PageParams, PlaceHistory, PlaceInLine, Referral, ReferralPage, Release, ReleaseChanges, ReleaseRun } from './types.js';

export interface WaitlistClientOptions {
  /** Where the service answers, such as https://waitlist.example.com; a path prefix is kept. */
  baseUrl: string;
  /** A secret key (sk_live_… or sk_test_…): it belongs on servers only. */
  secretKey: string;
  /** The fetch to call; the platform's own by default. */
  fetch?: typeof globalThis.fetch;
  /**
   * How long one attempt may wait for its answer, in milliseconds. Default 10,000. Invite, reinvite
   * and invite-next wait at least 40,000: the service answers them once the mail is handed over.
   */
  timeoutMs?: number;
  /** How many times a failed call may be repeated (see the README's "Retries"). Default 2. */
  maxRetries?: number;
}

/** An import of 100,000 rows takes under a minute; its answer comes once the whole file is in. */
const IMPORT_TIMEOUT_MS = 120_000;

/** The waitlist service's API for a product's server, one method per route. */
export class WaitlistClient {
  // A private field, so that logging the client never shows what it holds (the key among it).
  readonly #requests: Requests;

  constructor({ baseUrl, secretKey, fetch, timeoutMs = 10_000, maxRetries = 2 }: WaitlistClientOptions) {
    if (!isUrl(baseUrl)) throw new TypeError('WaitlistClient: baseUrl must be an absolute URL, such as https://waitlist.example.com.');
    if (typeof secretKey !== 'string' || !secretKey) throw new TypeError('WaitlistClient: secretKey must be a secret key (sk_live_… or sk_test_…).');
    if (!(timeoutMs > 0)) throw new TypeError('WaitlistClient: timeoutMs must be a positive number of milliseconds.');
    if (!Number.isInteger(maxRetries) || maxRetries < 0) throw new TypeError('WaitlistClient: maxRetries must be a whole number from 0.');
    const platformFetch = fetch ?? globalThis.fetch;
    if (typeof platformFetch !== 'function') throw new TypeError('WaitlistClient: this runtime has no fetch; pass one as the fetch option.');
    this.#requests = new Requests({
      baseUrl: baseUrl.replace(/\/+$/, ''),
      secretKey,
      // Called as a plain function: some runtimes refuse their fetch with another object as `this`.
      fetch: (input, init) => platformFetch(input, init),
      timeoutMs,
      maxRetries,
    });
  }

  /** One page of entries, newest first. */
  listEntries(params: ListEntriesParams = {}, options?: RequestOptions): Promise<EntryPage> {
    const { state, email, limit, cursor } = params;
    return this.#requests.send({ method: 'GET', path: '/api/v1/entries', query: { state, email, limit, cursor }, repeatable: true, options });
  }

  /** Every entry that matches, newest first, fetching page after page as the loop goes on. */
  async *entries(filter: EntryFilter = {}, options?: RequestOptions): AsyncGenerator<Entry, void, undefined> {
    let cursor: string | undefined;
    do {
      const page = await this.listEntries({ ...filter, cursor }, options);
      yield* page.data;
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
  }

  getEntry(id: string, options?: RequestOptions): Promise<Entry> {
    return this.#requests.send({ method: 'GET', path: entryPath(id), repeatable: true, options });
  }

  /** The entry's answers to the sign-up questions and where it came from (the first sign-up of its address). */
  getEntryProfile(id: string, options?: RequestOptions): Promise<EntryProfile> {
    return this.#requests.send({ method: 'GET', path: `${entryPath(id)}/profile`, repeatable: true, options });
  }

  /** Removes the entry whatever its state; a code already mailed stops working. */
  deleteEntry(id: string, options?: RequestOptions): Promise<void> {
    return this.#requests.send({ method: 'DELETE', path: entryPath(id), repeatable: false, options });
  }

  /** Mails a confirmed entry its invitation with a personal code; answers the entry, now invited. */
  inviteEntry(id: string, options?: IdempotentRequestOptions): Promise<Entry> {
    return this.#requests.sendKeyed({ method: 'POST', path: `${entryPath(id)}/invite`, sendsMail: true }, options);
  }

  /** Mails an invited entry a new code; the old one stops working once the mail is handed over. */
  reinviteEntry(id: string, options?: IdempotentRequestOptions): Promise<Entry> {
    return this.#requests.sendKeyed({ method: 'POST', path: `${entryPath(id)}/reinvite`, sendsMail: true }, options);
  }

  /** Moves a waiting entry up by `places` (calls add up). Never repeated after a lost answer. */
  moveUp(id: string, places: number, options?: RequestOptions): Promise<Entry> {
    return this.#requests.send({ method: 'POST', path: `${entryPath(id)}/move-up`, body: { places }, repeatable: false, options });
  }

  /** Invites the first `count` people in line. */
  inviteNext(count: number, options?: IdempotentRequestOptions): Promise<InviteNextResult> {
    return this.#requests.sendKeyed({ method: 'POST', path: '/api/v1/entries/invite-next', body: { count }, sendsMail: true }, options);
  }

  /** A waiting entry's place in line; 409 not_confirmed or already_invited for an entry not in line. */
  placeInLine(id: string, options?: RequestOptions): Promise<PlaceInLine> {
    return this.#requests.send({ method: 'GET', path: `${entryPath(id)}/place`, repeatable: true, options });
  }

  /** Every change of an entry's place or credit with its cause, newest first, a page at a time. */
  placeHistory(id: string, params: PageParams = {}, options?: RequestOptions): Promise<PlaceHistory> {
    return this.#requests.send({ method: 'GET', path: `${entryPath(id)}/history`, query: { limit: params.limit, cursor: params.cursor }, repeatable: true, options });
  }

  /** The sign-ups through an entry's referral link and their credit, newest first, a page at a time. */
  listReferrals(id: string, params: PageParams = {}, options?: RequestOptions): Promise<ReferralPage> {
    return this.#requests.send({ method: 'GET', path: `${entryPath(id)}/referrals`, query: { limit: params.limit, cursor: params.cursor }, repeatable: true, options });
  }

  /** Credits a confirmed referral the rules withheld or held; the referrer moves up at once. Granting twice changes nothing. */
  grantReferral(id: string, referralId: string, options?: RequestOptions): Promise<Referral> {
    return this.#requests.send({ method: 'POST', path: `${entryPath(id)}/referrals/${encodeURIComponent(referralId)}/grant`, repeatable: true, options });
  }

  /** Withholds a confirmed referral; a credited one stops counting and the referrer moves back at once. */
  revokeReferral(id: string, referralId: string, options?: RequestOptions): Promise<Referral> {
    return this.#requests.send({ method: 'POST', path: `${entryPath(id)}/referrals/${encodeURIComponent(referralId)}/revoke`, repeatable: true, options });
  }

  /**
   * Imports a waitlist from a CSV export (GetWaitlist, Waitlister, Prefinery, Viral Loops, LaunchList, or
   * any file with `mapping`). `csv` is the file's text, or its bytes as they are read (a Node.js stream,
   * where the runtime's fetch sends an async iterable). Importing twice is importing once, so a text is
   * sent again after a lost answer; a stream, read once, never is.
   */
  importEntries(csv: string | AsyncIterable<Uint8Array>, options: ImportOptions & RequestOptions = {}): Promise<ImportReport> {
    const { dryRun, checksum, mapping, state, confirmationMails, events, ...request } = options;
    const flag = (value: boolean | undefined) => (value === undefined ? undefined : String(value));
    return this.#requests.send({
      method: 'POST',
      path: '/api/v1/entries/import',
      query: { dryRun: flag(dryRun), checksum, mapping: mapping && JSON.stringify(mapping), state, confirmationMails: flag(confirmationMails), events: flag(events) },
      raw: { body: csv, contentType: 'text/csv' },
      repeatable: typeof csv === 'string',
      minTimeoutMs: IMPORT_TIMEOUT_MS,
      options: request,
    });
  }

  /** Whether the address was invited (a redeemed one stays invited); unknown addresses are not. */
  async isInvited(email: string, options?: RequestOptions): Promise<boolean> {
    const answer = await this.#requests.send<components['schemas']['InvitedAnswer']>({ method: 'POST', path: '/api/v1/invited', body: { email }, repeatable: true, options });
    return answer.invited;
  }

  /** Checks an invitation code (the `invite` query parameter) without using it up. */
  verifyInvite(token: string, options?: RequestOptions): Promise<CodeCheck> {
    return this.#requests.send({ method: 'POST', path: '/api/v1/invites/verify', body: { token }, repeatable: true, options });
  }

  /** Uses an invitation code up: valid is true exactly once per code. */
  redeemInvite(token: string, options?: IdempotentRequestOptions): Promise<CodeCheck> {
    return this.#requests.sendKeyed({ method: 'POST', path: '/api/v1/invites/redeem', body: { token } }, options);
  }

  /** The scheduled releases of the key's product and mode, oldest first. */
  async listReleases(options?: RequestOptions): Promise<Release[]> {
    return (await this.#requests.send<components['schemas']['ReleaseList']>({ method: 'GET', path: '/api/v1/releases', repeatable: true, options })).data;
  }

  /** Invites `count` people every tick of a cron expression in an IANA time zone. */
  createRelease(release: NewRelease, options?: IdempotentRequestOptions): Promise<Release> {
    return this.#requests.sendKeyed({ method: 'POST', path: '/api/v1/releases', body: release }, options);
  }

  getRelease(id: string, options?: RequestOptions): Promise<Release> {
    return this.#requests.send({ method: 'GET', path: releasePath(id), repeatable: true, options });
  }

  /** Changes the fields given; the same change twice is the same change, so it may be repeated. */
  updateRelease(id: string, changes: ReleaseChanges, options?: RequestOptions): Promise<Release> {
    return this.#requests.send({ method: 'PATCH', path: releasePath(id), body: changes, repeatable: true, options });
  }

  pauseRelease(id: string, options?: RequestOptions): Promise<Release> {
    return this.updateRelease(id, { paused: true }, options);
  }

  /** Runs again from the next tick; a tick missed while paused is not made up. */
  resumeRelease(id: string, options?: RequestOptions): Promise<Release> {
    return this.updateRelease(id, { paused: false }, options);
  }

  /** One run now, answered once its mails were settled. */
  runRelease(id: string, options?: IdempotentRequestOptions): Promise<ReleaseRun> {
    return this.#requests.sendKeyed({ method: 'POST', path: `${releasePath(id)}/run`, sendsMail: true }, options);
  }

  /** The release's runs, newest first (20 unless `limit`, at most 100). */
  async releaseRuns(id: string, params: { limit?: number } = {}, options?: RequestOptions): Promise<ReleaseRun[]> {
    return (await this.#requests.send<components['schemas']['ReleaseRunList']>({ method: 'GET', path: `${releasePath(id)}/runs`, query: { limit: params.limit }, repeatable: true, options })).data;
  }

  deleteRelease(id: string, options?: RequestOptions): Promise<void> {
    return this.#requests.send({ method: 'DELETE', path: releasePath(id), repeatable: false, options });
  }
}

function isUrl(text: unknown): text is string {
  try {
    return typeof text === 'string' && /^https?:$/.test(new URL(text).protocol);
  } catch {
    return false;
  }
}

function entryPath(id: string): string {
  return `/api/v1/entries/${encodeURIComponent(id)}`;
}

function releasePath(id: string): string {
  return `/api/v1/releases/${encodeURIComponent(id)}`;
}
