import { WaitlistApiError, WaitlistError } from './errors.js';
import { parseRetryAfter } from './retry.js';

// What the client reads of the service's answers: a JSON body, or the error it stands for.

export function parseAnswer<T>(text: string, what: string): T {
  if (!text) return undefined as T;
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new WaitlistError(`${what} answered with a body that is not JSON.`);
  }
}

/** The error body `{"error": {"code", "message", "param"?}}`, or what can be said without one (a proxy's page). */
export function apiError(response: Response, text: string): WaitlistApiError {
  const headers = {
    status: response.status,
    retryAfterSeconds: parseRetryAfter(response.headers.get('retry-after')),
    requestId: response.headers.get('request-id') ?? response.headers.get('x-request-id') ?? undefined,
  };
  const error = errorBody(text);
  if (!error) return new WaitlistApiError({ ...headers, code: 'unexpected_response', message: `The service answered ${response.status} without an error body.` });
  return new WaitlistApiError({ ...headers, ...error });
}

function errorBody(text: string): { code: string; message: string; param?: string } | undefined {
  try {
    const { error } = JSON.parse(text) as { error?: { code?: unknown; message?: unknown; param?: unknown } };
    if (typeof error?.code !== 'string' || typeof error.message !== 'string') return undefined;
    return { code: error.code, message: error.message, ...(typeof error.param === 'string' ? { param: error.param } : {}) };
  } catch {
    return undefined;
  }
}
