import { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiResponseObject, ZodOpenApiResponsesObject } from 'zod-openapi';
import { errorBody, ErrorCode } from '../common/api-error';
import { IDEMPOTENCY_KEY, REMEMBERED_ERRORS } from '../common/idempotency.interceptor';

/** The error codes a customer's program can meet; the others are answers of the dashboard and the CLI only. */
export type ApiErrorCode = Exclude<ErrorCode, 'internal_error' | 'forbidden' | 'delivery_not_waiting' | 'queue_unavailable'>;

/** What each code means, in the document's words; the answer's own message says it for the case at hand. */
const MEANINGS: Record<ApiErrorCode, string> = {
  invalid_request: 'The request could not be read (not JSON, over 64 KiB, a URL that cannot be decoded), or a field is missing, of the wrong type or out of bounds; param names the field.',
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
};

type ErrorStatus = 400 | 401 | 404 | 409 | 422 | 429 | 502;

const RETRY_AFTER = z.object({
  'Retry-After': z.string().regex(/^\d+$/).meta({ description: 'Whole seconds to wait before trying again.', example: '1' }),
});

const REPLAYED = z.object({
  'Idempotent-Replayed': z
    .enum(['true'])
    .optional()
    .meta({ description: 'Present on the kept answer of an earlier request with the same Idempotency-Key; nothing was done again.' }),
});

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
  const headers = codes.includes('rate_limited') ? RETRY_AFTER : options.replayable ? REPLAYED : undefined;
  const response: ZodOpenApiResponseObject = {
    id,
    description: codes.map((code) => `\`${code}\`: ${MEANINGS[code]}`).join('\n\n'),
    ...(headers ? { headers } : {}),
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
  body?: { schema: z.ZodType; example: unknown };
  /** The answer when the operation did its work; no schema for an answer without a body. */
  ok: { status: 200 | 204; description: string; schema?: z.ZodType; example?: unknown };
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
      ...(idempotent ? { header: z.object({ 'Idempotency-Key': IDEMPOTENCY_KEY.optional() }) } : {}),
    },
    ...(operation.body
      ? { requestBody: { required: true, content: { 'application/json': { schema: operation.body.schema, example: operation.body.example } } } }
      : {}),
    responses: {
      [ok.status]: {
        description: ok.description,
        ...(idempotent ? { headers: REPLAYED } : {}),
        ...(ok.schema ? { content: { 'application/json': { schema: ok.schema, ...(ok.example === undefined ? {} : { example: ok.example }) } } } : {}),
      },
      ...responses,
    },
  };
}
