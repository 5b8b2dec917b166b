import { apiError, parseAnswer } from './answers.js';
import { WaitlistError, WaitlistNetworkError, WaitlistTimeoutError } from './errors.js';
import { retryDelayMs, sleep } from './retry.js';
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

/** Options every call takes. */
export interface RequestOptions {
  /** This call's bound for each attempt, instead of the client's. */
  timeoutMs?: number;
  /** Aborts the call, retries and waits included; the call then rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** Options of the calls that take an Idempotency-Key: invite, reinvite, invite-next and redeem. */
export interface IdempotentRequestOptions extends RequestOptions {
  /** 1 to 255 visible ASCII characters; a repeat with the same key gets the first answer. */
  idempotencyKey?: string;
  /** Makes up a key (when none is given) and sends it on every attempt, so the call may be repeated after a lost answer. */
  safeRetry?: boolean;
}

/** The service answers a call that sends mail once the mail is handed over: about 33 s at the most for one. */
const MAIL_TIMEOUT_MS = 40_000;
/** An import of 100,000 rows takes under a minute; its answer comes once the whole file is in. */
const IMPORT_TIMEOUT_MS = 120_000;

interface Call {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** A body sent as it is, instead of JSON (the import's CSV). */
  raw?: { body: string | AsyncIterable<Uint8Array>; contentType: string };
  /** At least this long for each attempt. */
  minTimeoutMs?: number;
  /** The service may see it twice with no harm, so it is repeated after a lost answer too. */
  repeatable: boolean;
  idempotencyKey?: string;
  sendsMail?: boolean;
  options?: RequestOptions;
}

/** The waitlist service's API for a product's server, one method per route. */
export class WaitlistClient {
  readonly #baseUrl: string;
  // A private field, so that logging the client never shows the key.
  readonly #secretKey: string;
  readonly #fetch: typeof globalThis.fetch;
  readonly #timeoutMs: number;
  readonly #maxRetries: number;

  constructor({ baseUrl, secretKey, fetch, timeoutMs = 10_000, maxRetries = 2 }: WaitlistClientOptions) {
    if (!isUrl(baseUrl)) throw new TypeError('WaitlistClient: baseUrl must be an absolute URL, such as https://waitlist.example.com.');
    if (typeof secretKey !== 'string' || !secretKey) throw new TypeError('WaitlistClient: secretKey must be a secret key (sk_live_… or sk_test_…).');
    if (!(timeoutMs > 0)) throw new TypeError('WaitlistClient: timeoutMs must be a positive number of milliseconds.');
    if (!Number.isInteger(maxRetries) || maxRetries < 0) throw new TypeError('WaitlistClient: maxRetries must be a whole number from 0.');
    this.#baseUrl = baseUrl.replace(/\/+$/, '');
    this.#secretKey = secretKey;
    const platformFetch = fetch ?? globalThis.fetch;
    if (typeof platformFetch !== 'function') throw new TypeError('WaitlistClient: this runtime has no fetch; pass one as the fetch option.');
    // Called as a plain function: some runtimes refuse their fetch with another object as `this`.
    this.#fetch = (input, init) => platformFetch(input, init);
    this.#timeoutMs = timeoutMs;
    this.#maxRetries = maxRetries;
  }

  /** One page of entries, newest first. */
  listEntries(params: ListEntriesParams = {}, options?: RequestOptions): Promise<EntryPage> {
    const { state, email, limit, cursor } = params;
    return this.#send({ method: 'GET', path: '/api/v1/entries', query: { state, email, limit, cursor }, repeatable: true, options });
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
    return this.#send({ method: 'GET', path: entryPath(id), repeatable: true, options });
  }

  /** The entry's answers to the sign-up questions and where it came from (the first sign-up of its address). */
  getEntryProfile(id: string, options?: RequestOptions): Promise<EntryProfile> {
    return this.#send({ method: 'GET', path: `${entryPath(id)}/profile`, repeatable: true, options });
  }

  /** Removes the entry whatever its state; a code already mailed stops working. */
  deleteEntry(id: string, options?: RequestOptions): Promise<void> {
    return this.#send({ method: 'DELETE', path: entryPath(id), repeatable: false, options });
  }

  /** Mails a confirmed entry its invitation with a personal code; answers the entry, now invited. */
  inviteEntry(id: string, options?: IdempotentRequestOptions): Promise<Entry> {
    return this.#sendKeyed({ method: 'POST', path: `${entryPath(id)}/invite`, sendsMail: true }, options);
  }

  /** Mails an invited entry a new code; the old one stops working once the mail is handed over. */
  reinviteEntry(id: string, options?: IdempotentRequestOptions): Promise<Entry> {
    return this.#sendKeyed({ method: 'POST', path: `${entryPath(id)}/reinvite`, sendsMail: true }, options);
  }

  /** Moves a waiting entry up by `places` (calls add up). Never repeated after a lost answer. */
  moveUp(id: string, places: number, options?: RequestOptions): Promise<Entry> {
    return this.#send({ method: 'POST', path: `${entryPath(id)}/move-up`, body: { places }, repeatable: false, options });
  }

  /** Invites the first `count` people in line. */
  inviteNext(count: number, options?: IdempotentRequestOptions): Promise<InviteNextResult> {
    return this.#sendKeyed({ method: 'POST', path: '/api/v1/entries/invite-next', body: { count }, sendsMail: true }, options);
  }

  /** A waiting entry's place in line; 409 not_confirmed or already_invited for an entry not in line. */
  placeInLine(id: string, options?: RequestOptions): Promise<PlaceInLine> {
    return this.#send({ method: 'GET', path: `${entryPath(id)}/place`, repeatable: true, options });
  }

  /** Every change of an entry's place or credit with its cause, newest first, a page at a time. */
  placeHistory(id: string, params: PageParams = {}, options?: RequestOptions): Promise<PlaceHistory> {
    return this.#send({ method: 'GET', path: `${entryPath(id)}/history`, query: { limit: params.limit, cursor: params.cursor }, repeatable: true, options });
  }

  /** The sign-ups through an entry's referral link and their credit, newest first, a page at a time. */
  listReferrals(id: string, params: PageParams = {}, options?: RequestOptions): Promise<ReferralPage> {
    return this.#send({ method: 'GET', path: `${entryPath(id)}/referrals`, query: { limit: params.limit, cursor: params.cursor }, repeatable: true, options });
  }

  /** Credits a confirmed referral the rules withheld or held; the referrer moves up at once. Granting twice changes nothing. */
  grantReferral(id: string, referralId: string, options?: RequestOptions): Promise<Referral> {
    return this.#send({ method: 'POST', path: `${entryPath(id)}/referrals/${encodeURIComponent(referralId)}/grant`, repeatable: true, options });
  }

  /** Withholds a confirmed referral; a credited one stops counting and the referrer moves back at once. */
  revokeReferral(id: string, referralId: string, options?: RequestOptions): Promise<Referral> {
    return this.#send({ method: 'POST', path: `${entryPath(id)}/referrals/${encodeURIComponent(referralId)}/revoke`, repeatable: true, options });
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
    return this.#send({
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
    const answer = await this.#send<{ invited: boolean }>({ method: 'POST', path: '/api/v1/invited', body: { email }, repeatable: true, options });
    return answer.invited;
  }

  /** Checks an invitation code (the `invite` query parameter) without using it up. */
  verifyInvite(token: string, options?: RequestOptions): Promise<CodeCheck> {
    return this.#send({ method: 'POST', path: '/api/v1/invites/verify', body: { token }, repeatable: true, options });
  }

  /** Uses an invitation code up: valid is true exactly once per code. */
  redeemInvite(token: string, options?: IdempotentRequestOptions): Promise<CodeCheck> {
    return this.#sendKeyed({ method: 'POST', path: '/api/v1/invites/redeem', body: { token } }, options);
  }

  /** The scheduled releases of the key's product and mode, oldest first. */
  async listReleases(options?: RequestOptions): Promise<Release[]> {
    return (await this.#send<{ data: Release[] }>({ method: 'GET', path: '/api/v1/releases', repeatable: true, options })).data;
  }

  /** Invites `count` people every tick of a cron expression in an IANA time zone. */
  createRelease(release: NewRelease, options?: IdempotentRequestOptions): Promise<Release> {
    return this.#sendKeyed({ method: 'POST', path: '/api/v1/releases', body: release }, options);
  }

  getRelease(id: string, options?: RequestOptions): Promise<Release> {
    return this.#send({ method: 'GET', path: releasePath(id), repeatable: true, options });
  }

  /** Changes the fields given; the same change twice is the same change, so it may be repeated. */
  updateRelease(id: string, changes: ReleaseChanges, options?: RequestOptions): Promise<Release> {
    return this.#send({ method: 'PATCH', path: releasePath(id), body: changes, repeatable: true, options });
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
    return this.#sendKeyed({ method: 'POST', path: `${releasePath(id)}/run`, sendsMail: true }, options);
  }

  /** The release's runs, newest first (20 unless `limit`, at most 100). */
  async releaseRuns(id: string, params: { limit?: number } = {}, options?: RequestOptions): Promise<ReleaseRun[]> {
    return (await this.#send<{ data: ReleaseRun[] }>({ method: 'GET', path: `${releasePath(id)}/runs`, query: { limit: params.limit }, repeatable: true, options })).data;
  }

  deleteRelease(id: string, options?: RequestOptions): Promise<void> {
    return this.#send({ method: 'DELETE', path: releasePath(id), repeatable: false, options });
  }

  #sendKeyed<T>(call: Pick<Call, 'method' | 'path' | 'body' | 'sendsMail'>, options: IdempotentRequestOptions = {}): Promise<T> {
    const idempotencyKey = options.idempotencyKey ?? (options.safeRetry ? globalThis.crypto.randomUUID() : undefined);
    return this.#send({ ...call, idempotencyKey, repeatable: idempotencyKey !== undefined, options });
  }

  async #send<T>(call: Call): Promise<T> {
    for (let retry = 1; ; retry++) {
      try {
        return await this.#attempt<T>(call);
      } catch (error) {
        // A streamed body is gone once sent: nothing to send again.
        const resendable = call.raw === undefined || typeof call.raw.body === 'string';
        const delay = retry <= this.#maxRetries && resendable ? retryDelayMs(error, retry, call.repeatable) : null;
        if (delay === null) throw error;
        await sleep(delay, call.options?.signal);
      }
    }
  }

  async #attempt<T>(call: Call): Promise<T> {
    const least = call.sendsMail ? MAIL_TIMEOUT_MS : (call.minTimeoutMs ?? 0);
    const { signal, timeoutMs = Math.max(this.#timeoutMs, least) } = call.options ?? {};
    signal?.throwIfAborted();
    const what = `${call.method} ${call.path}`;
    const controller = new AbortController();
    const abort = () => controller.abort(signal?.reason);
    signal?.addEventListener('abort', abort, { once: true });
    const timer = setTimeout(() => controller.abort(new WaitlistTimeoutError(`${what} got no answer within ${timeoutMs} ms.`)), timeoutMs);
    try {
      const response = await this.#fetch(this.#url(call), {
        method: call.method,
        headers: this.#headers(call),
        body: call.raw ? (call.raw.body as string) : call.body === undefined ? undefined : JSON.stringify(call.body),
        signal: controller.signal,
        // A streamed body goes out while the answer is awaited (fetch's half duplex).
        ...(call.raw && typeof call.raw.body !== 'string' ? { duplex: 'half' } : {}),
      } as RequestInit);
      const text = await response.text();
      if (!response.ok) throw apiError(response, text);
      return parseAnswer<T>(text, what);
    } catch (error) {
      if (error instanceof WaitlistError) throw error;
      // The timeout's own error, or the caller's reason for aborting.
      if (controller.signal.aborted) throw controller.signal.reason;
      // The cause keeps the platform's words out of the message: some name the whole URL.
      throw new WaitlistNetworkError(`${what} got no answer: the connection failed or broke.`, { cause: error });
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', abort);
    }
  }

  #url({ path, query = {} }: Call): string {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value));
    const search = params.toString();
    return `${this.#baseUrl}${path}${search ? `?${search}` : ''}`;
  }

  #headers(call: Call): Record<string, string> {
    return {
      accept: 'application/json',
      authorization: `Bearer ${this.#secretKey}`,
      ...(call.raw ? { 'content-type': call.raw.contentType } : call.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(call.idempotencyKey === undefined ? {} : { 'idempotency-key': call.idempotencyKey }),
    };
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
