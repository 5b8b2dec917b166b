/** The error codes the API answers with; a code added later arrives as a plain string. */
export type WaitlistErrorCode =
  | 'invalid_request'
  | 'invalid_cursor'
  | 'invalid_email'
  | 'invalid_idempotency_key'
  | 'unauthorized'
  | 'not_found'
  | 'not_confirmed'
  | 'already_invited'
  | 'not_invited'
  | 'already_redeemed'
  | 'idempotency_in_progress'
  | 'idempotency_key_reused'
  | 'rate_limited'
  | 'mail_failed'
  /** Only with the product's capacity cap: the call would pass it. */
  | 'capacity_reached'
  /** Only from the public sign-up of a product whose sign-up challenge is on: no right, unused solution. */
  | 'challenge_failed'
  | 'internal_error'
  /** Made by the client: an answer outside 2xx without the service's error body (a proxy's page, say). */
  | 'unexpected_response'
  // Keeps the literals above in editors' completion while accepting any other code.
  | (string & {});

/** Every error the client throws for a call, whatever went wrong. */
export class WaitlistError extends Error {
  override name = 'WaitlistError';
}

/** The service answered with a status outside 2xx. */
export class WaitlistApiError extends WaitlistError {
  override name = 'WaitlistApiError';
  readonly status: number;
  readonly code: WaitlistErrorCode;
  /** The request field at fault, when the service names one. */
  readonly param?: string;
  /** From the Retry-After header (429 rate_limited). */
  readonly retryAfterSeconds?: number;
  /** From a Request-Id or X-Request-Id header, when a proxy or the service sets one. */
  readonly requestId?: string;

  constructor(details: {
    status: number;
    code: WaitlistErrorCode;
    message: string;
    param?: string;
    retryAfterSeconds?: number;
    requestId?: string;
  }) {
    super(details.message);
    this.status = details.status;
    this.code = details.code;
    if (details.param !== undefined) this.param = details.param;
    if (details.retryAfterSeconds !== undefined) this.retryAfterSeconds = details.retryAfterSeconds;
    if (details.requestId !== undefined) this.requestId = details.requestId;
  }
}

/** No answer came: the connection failed or broke. The request may or may not have been handled. */
export class WaitlistNetworkError extends WaitlistError {
  override name = 'WaitlistNetworkError';
}

/** No answer came within the call's `timeoutMs`. The request may or may not have been handled. */
export class WaitlistTimeoutError extends WaitlistError {
  override name = 'WaitlistTimeoutError';
}
