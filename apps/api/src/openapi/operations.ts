import { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiResponseObject, ZodOpenApiResponsesObject } from 'zod-openapi';
import { errorBody, ErrorCode } from '../common/api-error';
import { IDEMPOTENCY_KEY, REMEMBERED_ERRORS } from '../common/idempotency.interceptor';
import { REQUEST_ID } from '../common/request-id';

/** The error codes a customer's program can meet; the others are answers of the dashboard and the CLI only. */
export type ApiErrorCode = Exclude<ErrorCode, 'internal_error' | 'forbidden' | 'delivery_not_waiting' | 'queue_unavailable'>;

/** What each code means, in the document's words; the answer's own message says it for the case at hand. */
const MEANINGS: Record<ApiErrorCode, string> = {
  invalid_request: 'The request could not be read (not JSON, over 64 KiB or an import\'s CSV over 20 MiB, a URL that cannot be decoded, headers over 16 KiB), or a field is missing, of the wrong type or out of bounds; param names the field.',
  invalid_cursor: 'The cursor was not issued by the API for this listing; start again without it.',
  invalid_email: 'Not a valid email address.',
  invalid_idempotency_key: 'Idempotency-Key is not 1 to 255 visible ASCII characters.',
  unauthorized: 'The key is missing, unknown or revoked.',
  not_found: "No such entry for this key (entries of other products and modes do not exist for it).",
  not_confirmed: 'The entry has not confirmed its address yet.',
  already_invited: 'The entry was invited already (or has redeemed).',
  not_invited: 'The entry was not invited yet.',
  already_redeemed: 'The entry has redeemed its invitation.',
  idempotency_in_progress: 'A request with this Idempotency-Key is still running.',
  idempotency_key_reused: 'This Idempotency-Key was used for a different request.',
  rate_limited: 'Too many requests; try again after Retry-After seconds.',
  mail_failed: 'The mail could not be handed over; nothing was changed, try again.',
  provider_unavailable: "Only the mail providers' hooks: a server of the provider that the hook had to ask (Amazon SNS's signing certificate or subscription link) did not answer; nothing was changed, and the provider sends the call again.",
  challenge_failed:
    "Only from the public sign-up of a product whose sign-up challenge is on (invisible or required): the challenge field is missing, not a solution of a challenge from GET /public/v1/challenge for this key's product and mode, expired (30 minutes), or used already (each solution counts once). Nothing was written, and the answer is the same whatever the address; fetch and solve a new challenge.",
  capacity_reached: "Only with the product's capacity cap set: the call would leave more entries invited and not redeemed than the cap allows; nothing was changed. The message says how many places are free.",
};

type ErrorStatus = 400 | 401 | 404 | 409 | 422 | 429 | 502 | 503;

const RETRY_AFTER = {
  'Retry-After': z.string().regex(/^\d+$/).meta({ description: 'Whole seconds to wait before trying again.', example: '1' }),
};

const REPLAYED = {
  'Idempotent-Replayed': z
    .enum(['true'])
    .optional()
    .meta({ description: 'Present on the kept answer of an earlier request with the same Idempotency-Key; nothing was done again.' }),
};

const REQUEST_ID_EXAMPLE = '5d1b7f3e-8a2c-4e69-b0d4-7c3a9e1f2b68';

/**
 * Not a pattern the request must match: any other value is answered as usual, under an id of our own
 * (the pattern is in the answer's header, which always matches it).
 */
const REQUEST_ID_PARAM = z
  .string()
  .optional()
  .meta({
    description:
      'Your id for this request, returned in the answer\'s X-Request-Id and written on every log line about the request and the mails it sent. Taken when it is 1 to 128 letters, digits and _ . : @ / + = -; any other value is ignored and the service makes a UUID instead.',
    example: 'signup-7f3e2b',
    param: { id: 'RequestId' },
  });

const REQUEST_ID_DESCRIPTION = "The request's id: the X-Request-Id it sent when that was 1 to 128 letters, digits and _ . : @ / + = -, else a UUID the service made. Quote it when asking about the request: the service's log lines about it carry it.";

const REQUEST_ID_HEADER = z.string().regex(REQUEST_ID).meta({ description: REQUEST_ID_DESCRIPTION, example: REQUEST_ID_EXAMPLE, header: { id: 'RequestId' } });

/** A request refused before it reaches the router (a URL that cannot be decoded, headers over 16 KiB) is answered without an id. */
const REQUEST_ID_HEADER_IF_ROUTED = z
  .string()
  .regex(REQUEST_ID)
  .optional()
  .meta({
    description: `${REQUEST_ID_DESCRIPTION} Missing when the request could not be read far enough to be routed: a URL that cannot be decoded, or headers over 16 KiB.`,
    example: REQUEST_ID_EXAMPLE,
    header: { id: 'RequestIdIfRouted' },
  });

/** The request headers every operation takes: `X-Request-Id`, and `shape`. */
export const requestHeaders = (shape: z.ZodRawShape = {}) => z.object({ 'X-Request-Id': REQUEST_ID_PARAM, ...shape });

/** The headers of an answer: `X-Request-Id`, which every answer of a route carries, and `shape`. */
export const answerHeaders = (shape: z.ZodRawShape = {}) => z.object({ ...shape, 'X-Request-Id': REQUEST_ID_HEADER });

interface ErrorResponseOptions {
  /** Also answered as an HTML page, with the same status (an HTML form's post). */
  html?: boolean;
  /** Can be the kept answer of an earlier request with the same Idempotency-Key. */
  replayable?: boolean;
}

const errorResponseComponents = new Map<string, ZodOpenApiResponseObject>();

/**
 * An error answer that carries one of `codes`, each with its meaning and an example: a component of
 * the document, named after its codes, so that the routes that share it refer to one.
 */
export function errorResponse(codes: readonly [ApiErrorCode, ...ApiErrorCode[]], options: ErrorResponseOptions = {}): ZodOpenApiResponseObject {
  const pascal = (code: string) => code.replace(/(^|_)(\w)/g, (_, __, letter: string) => letter.toUpperCase());
  const id = [codes.map(pascal).join('Or'), options.html ? 'OrPage' : '', options.replayable ? 'Replayable' : ''].join('');
  const known = errorResponseComponents.get(id);
  if (known) return known;
  const examples = Object.fromEntries(codes.map((code) => [code, { value: { error: { code, message: MEANINGS[code] } } }]));
  const headers = z.object({
    ...(codes.includes('rate_limited') ? RETRY_AFTER : options.replayable ? REPLAYED : {}),
    'X-Request-Id': codes.includes('invalid_request') ? REQUEST_ID_HEADER_IF_ROUTED : REQUEST_ID_HEADER,
  });
  const response: ZodOpenApiResponseObject = {
    id,
    description: codes.map((code) => `\`${code}\`: ${MEANINGS[code]}`).join('\n\n'),
    headers,
    content: {
      'application/json': { schema: errorBody(codes), examples },
      ...(options.html ? { 'text/html': { schema: { type: 'string' } } } : {}),
    },
  };
  errorResponseComponents.set(id, response);
  return response;
}

type ErrorsByStatus = Partial<Record<ErrorStatus, readonly [ApiErrorCode, ...ApiErrorCode[]]>>;

/** Error answers by status, each with the codes it can carry. */
export function errorResponses(errors: ErrorsByStatus, options: ErrorResponseOptions = {}): ZodOpenApiResponsesObject {
  return Object.fromEntries(
    Object.entries(errors).map(([status, codes]) => [
      status,
      errorResponse(codes, { ...options, replayable: options.replayable && codes.some((code) => REMEMBERED_ERRORS.has(code)) }),
    ]),
  );
}

export interface SecretKeyOperation {
  operationId: string;
  tags: [string];
  summary: string;
  description: string;
  path?: z.ZodObject;
  query?: z.ZodType<unknown, Record<string, unknown>>;
  /** The request body: JSON unless contentType says otherwise (the import's text/csv). */
  body?: { schema: z.ZodType; example: unknown; contentType?: string };
  /** The answer when the operation did its work; no schema for an answer without a body. */
  ok: { status: 200 | 201 | 204; description: string; schema?: z.ZodType; example?: unknown };
  /** The error answers of the operation itself; 400 invalid_request, 401 and 429 are added. */
  errors?: ErrorsByStatus;
  /** Takes Idempotency-Key (and can answer its errors). */
  idempotent?: boolean;
  /** Not counted against the key's rate limit, so never 429. */
  withoutRateLimit?: boolean;
}

/**
 * An operation of the customer API under /api/v1: the secret key in Authorization, the answers every
 * such route can give (400 invalid_request for a request that cannot be read, 401, 429), and with
 * `idempotent` the Idempotency-Key header, its errors and the Idempotent-Replayed answers.
 */
export function secretKeyOperation(operation: SecretKeyOperation): ZodOpenApiOperationObject {
  const { ok, idempotent } = operation;
  const errors: Partial<Record<ErrorStatus, ApiErrorCode[]>> = { 400: ['invalid_request'], 401: ['unauthorized'] };
  const add = (status: ErrorStatus, ...codes: ApiErrorCode[]) => {
    errors[status] = [...new Set([...(errors[status] ?? []), ...codes])];
  };
  for (const [status, codes] of Object.entries(operation.errors ?? {})) add(Number(status) as ErrorStatus, ...codes);
  if (idempotent) {
    add(400, 'invalid_idempotency_key');
    add(409, 'idempotency_in_progress');
    add(422, 'idempotency_key_reused');
  }
  if (!operation.withoutRateLimit) add(429, 'rate_limited');
  const responses = errorResponses(errors as ErrorsByStatus, { replayable: idempotent });
  return {
    operationId: operation.operationId,
    tags: operation.tags,
    summary: operation.summary,
    description: operation.description,
    security: [{ secretKey: [] }],
    requestParams: {
      ...(operation.path ? { path: operation.path } : {}),
      ...(operation.query ? { query: operation.query } : {}),
      header: requestHeaders(idempotent ? { 'Idempotency-Key': IDEMPOTENCY_KEY.optional() } : {}),
    },
    ...(operation.body
      ? { requestBody: { required: true, content: { [operation.body.contentType ?? 'application/json']: { schema: operation.body.schema, example: operation.body.example } } } }
      : {}),
    responses: {
      [ok.status]: {
        description: ok.description,
        headers: answerHeaders(idempotent ? REPLAYED : {}),
        ...(ok.schema ? { content: { 'application/json': { schema: ok.schema, ...(ok.example === undefined ? {} : { example: ok.example }) } } } : {}),
      },
      ...responses,
    },
  };
}
