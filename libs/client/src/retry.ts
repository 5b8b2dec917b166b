import { WaitlistApiError, WaitlistNetworkError, WaitlistTimeoutError } from './errors.js';

/** The longest Retry-After the client waits out; a 429 that asks for more goes to the caller at once. */
export const MAX_RETRY_AFTER_SECONDS = 60;

/**
 * The wait before the nth retry (1-based) of a failed call: 0.5 s, 1 s, 2 s, … at most 8 s, less up
 * to a quarter at random, so that callers that failed together do not come back together.
 */
export function backoffMs(retry: number, random: () => number = Math.random): number {
  const ceiling = Math.min(500 * 2 ** (retry - 1), 8_000);
  return Math.round(ceiling * (1 - random() / 4));
}

/**
 * How long to wait before repeating a call that failed with `error`, or null when it must not be
 * repeated. A 429 was not handled, so any call may be repeated after it. No answer (a network error, a
 * timeout) may hide a request that was handled, so only a `repeatable` call is sent again: a read, or
 * a call with an Idempotency-Key, whose repeat gets the first answer. Only keyed calls meet
 * idempotency_in_progress: the first request is still running, so ask again a little later.
 * Everything else, mail_failed included, is the caller's to decide.
 */
export function retryDelayMs(error: unknown, retry: number, repeatable: boolean, random?: () => number): number | null {
  if (error instanceof WaitlistApiError) {
    if (error.status === 429) {
      if (error.retryAfterSeconds === undefined) return backoffMs(retry, random);
      return error.retryAfterSeconds <= MAX_RETRY_AFTER_SECONDS ? error.retryAfterSeconds * 1000 : null;
    }
    return error.code === 'idempotency_in_progress' ? backoffMs(retry, random) : null;
  }
  const unanswered = error instanceof WaitlistNetworkError || error instanceof WaitlistTimeoutError;
  return unanswered && repeatable ? backoffMs(retry, random) : null;
}

/** Retry-After in seconds: a whole number of seconds, or an HTTP date. */
export function parseRetryAfter(header: string | null, now = Date.now()): number | undefined {
  if (header === null) return undefined;
  if (/^\s*\d+\s*$/.test(header)) return Number(header);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const abort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', abort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', abort, { once: true });
  });
}
