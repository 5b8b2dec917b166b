import { apiError, parseAnswer } from './answers.js';
import { WaitlistError, WaitlistNetworkError, WaitlistTimeoutError } from './errors.js';
import { retryDelayMs, sleep } from './retry.js';
import type { CodeCheck, Entry, EntryFilter, EntryPage, InviteNextResult, ListEntriesParams, PlaceInLine } from './types.js';

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

interface Call {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
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

  #sendKeyed<T>(call: Pick<Call, 'method' | 'path' | 'body' | 'sendsMail'>, options: IdempotentRequestOptions = {}): Promise<T> {
    const idempotencyKey = options.idempotencyKey ?? (options.safeRetry ? globalThis.crypto.randomUUID() : undefined);
    return this.#send({ ...call, idempotencyKey, repeatable: idempotencyKey !== undefined, options });
  }

  async #send<T>(call: Call): Promise<T> {
    for (let retry = 1; ; retry++) {
      try {
        return await this.#attempt<T>(call);
      } catch (error) {
        const delay = retry <= this.#maxRetries ? retryDelayMs(error, retry, call.repeatable) : null;
        if (delay === null) throw error;
        await sleep(delay, call.options?.signal);
      }
    }
  }

  async #attempt<T>(call: Call): Promise<T> {
    const { signal, timeoutMs = call.sendsMail ? Math.max(this.#timeoutMs, MAIL_TIMEOUT_MS) : this.#timeoutMs } = call.options ?? {};
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
        body: call.body === undefined ? undefined : JSON.stringify(call.body),
        signal: controller.signal,
      });
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
      ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
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
