import { z } from 'zod';

/** Every error code the service answers with, and its status: SPEC.md's error table first. */
export const ERROR_STATUS = {
  invalid_request: 400,
  invalid_cursor: 400,
  invalid_email: 400,
  invalid_idempotency_key: 400,
  unauthorized: 401,
  not_found: 404,
  not_confirmed: 409,
  already_invited: 409,
  not_invited: 409,
  already_redeemed: 409,
  idempotency_in_progress: 409,
  idempotency_key_reused: 422,
  rate_limited: 429,
  mail_failed: 502,
  internal_error: 500,
  // Not in SPEC.md's table: only a product with a capacity cap answers it (docs/api.md).
  /** An invite, reinvite or invite-next would pass the product's capacity cap; nothing was changed. */
  capacity_reached: 409,
  // Not in SPEC.md's table: only a product whose sign-up challenge is on answers it (docs/api.md).
  /** A public sign-up without a right, unexpired, unused solution of the product's challenge; nothing was written. */
  challenge_failed: 400,
  // Not in SPEC.md's table: answers of the dashboard and the CLI only.
  /** A form posted without its CSRF token. */
  forbidden: 403,
  /** Retry now of a delivery that is not waiting for its next attempt (delivered, given up, or already retrying). */
  delivery_not_waiting: 409,
  /** Redis did not answer in time; nothing was changed. */
  queue_unavailable: 503,
  // Not in SPEC.md's table: only the mail providers' hooks answer it (docs/operations.md).
  /** A server of the provider that the hook had to ask did not answer; nothing was changed, and the provider sends the call again. */
  provider_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** The error body; the OpenAPI document renders it per answer with the codes that answer can carry. */
export const errorBody = <const Code extends ErrorCode>(codes: readonly [Code, ...Code[]]) =>
  z.object({
    error: z.object({
      code: z.enum(codes).meta({ description: 'What went wrong, for programs: one of the codes listed for the answer.' }),
      message: z.string().meta({ description: 'What went wrong, for people: one sentence in English.' }),
      param: z.string().optional().meta({ description: 'The request field at fault, where there is one.' }),
    }),
  });
export type ErrorBody = z.infer<ReturnType<typeof errorBody<ErrorCode>>>;

/** A domain error: one global filter turns it into {"error": {"code", "message", "param"?}}. */
export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: { param?: string; retryAfterSeconds?: number } = {},
  ) {
    super(message);
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}
