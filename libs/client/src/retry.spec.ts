import { WaitlistApiError, WaitlistNetworkError, WaitlistTimeoutError } from './errors.js';
import { backoffMs, MAX_RETRY_AFTER_SECONDS, parseRetryAfter, retryDelayMs } from './retry.js';

const apiError = (status: number, code: string, retryAfterSeconds?: number) => new WaitlistApiError({ status, code, message: code, retryAfterSeconds });
const noJitter = () => 0;

describe('backoffMs', () => {
  it('doubles from 0.5 s up to 8 s, less up to a quarter at random', () => {
    expect([1, 2, 3, 4, 5, 6, 10].map((retry) => backoffMs(retry, noJitter))).toEqual([500, 1000, 2000, 4000, 8000, 8000, 8000]);
    expect(backoffMs(1, () => 0.999999)).toBe(375);
  });
});

describe('retryDelayMs', () => {
  it('waits out Retry-After on a 429, for any call', () => {
    expect(retryDelayMs(apiError(429, 'rate_limited', 2), 1, false)).toBe(2000);
    expect(retryDelayMs(apiError(429, 'rate_limited', 0), 1, false)).toBe(0);
    expect(retryDelayMs(apiError(429, 'rate_limited', MAX_RETRY_AFTER_SECONDS), 1, true)).toBe(60_000);
  });

  it('gives a 429 that asks for more than the cap back to the caller', () => {
    expect(retryDelayMs(apiError(429, 'rate_limited', MAX_RETRY_AFTER_SECONDS + 1), 1, true)).toBeNull();
  });

  it('backs off on a 429 without Retry-After (a proxy\'s)', () => {
    expect(retryDelayMs(apiError(429, 'unexpected_response'), 2, false, noJitter)).toBe(1000);
  });

  it('repeats a call after no answer only when the service may see it twice', () => {
    for (const error of [new WaitlistNetworkError('x'), new WaitlistTimeoutError('x')]) {
      expect(retryDelayMs(error, 1, true, noJitter)).toBe(500);
      expect(retryDelayMs(error, 1, false, noJitter)).toBeNull();
    }
  });

  it('asks again a little later while a request with the same key runs', () => {
    expect(retryDelayMs(apiError(409, 'idempotency_in_progress'), 1, true, noJitter)).toBe(500);
  });

  it('never repeats mail_failed, other answers or errors of the caller\'s own', () => {
    for (const [status, code] of [[502, 'mail_failed'], [409, 'already_invited'], [400, 'invalid_request'], [401, 'unauthorized'], [500, 'internal_error']] as const) {
      expect(retryDelayMs(apiError(status, code), 1, true)).toBeNull();
    }
    expect(retryDelayMs(new DOMException('stop', 'AbortError'), 1, true)).toBeNull();
    expect(retryDelayMs(new TypeError('bug'), 1, true)).toBeNull();
  });
});

describe('parseRetryAfter', () => {
  it('reads whole seconds or an HTTP date', () => {
    const now = Date.parse('2026-11-23T10:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3);
    expect(parseRetryAfter('Mon, 23 Nov 2026 10:00:02 GMT', now)).toBe(2);
    expect(parseRetryAfter('Mon, 23 Nov 2026 09:59:00 GMT', now)).toBe(0);
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
  });
});
