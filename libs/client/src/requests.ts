import { apiError, parseAnswer } from './answers.js';
import { WaitlistError, WaitlistNetworkError, WaitlistTimeoutError } from './errors.js';
import { retryDelayMs, sleep } from './retry.js';

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

export interface Call {
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

export interface RequestsOptions {
  /** Without a trailing slash. */
  baseUrl: string;
  secretKey: string;
  fetch: typeof globalThis.fetch;
  timeoutMs: number;
  maxRetries: number;
}

/** How the client sends a call: its URL and headers, a timeout per attempt, and the retries that can do no harm. */
export class Requests {
  readonly #baseUrl: string;
  // A private field, so that logging the client never shows the key.
  readonly #secretKey: string;
  readonly #fetch: typeof globalThis.fetch;
  readonly #timeoutMs: number;
  readonly #maxRetries: number;

  constructor({ baseUrl, secretKey, fetch, timeoutMs, maxRetries }: RequestsOptions) {
    this.#baseUrl = baseUrl;
    this.#secretKey = secretKey;
    this.#fetch = fetch;
    this.#timeoutMs = timeoutMs;
    this.#maxRetries = maxRetries;
  }

  sendKeyed<T>(call: Pick<Call, 'method' | 'path' | 'body' | 'sendsMail'>, options: IdempotentRequestOptions = {}): Promise<T> {
    const idempotencyKey = options.idempotencyKey ?? (options.safeRetry ? globalThis.crypto.randomUUID() : undefined);
    return this.send({ ...call, idempotencyKey, repeatable: idempotencyKey !== undefined, options });
  }

  async send<T>(call: Call): Promise<T> {
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
