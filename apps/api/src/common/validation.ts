import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { UNSTORABLE_TEXT, unstorableTextAt } from '@app/shared';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { ZodOpenApiOverrideMetaContext } from 'zod-openapi';
import { ApiError } from './api-error';

/** What the JSON parser leaves as the body when it could not read one (see app.ts). */
export const UNREADABLE_BODY = Symbol('unreadable body');

/**
 * Marks a field of an object schema whose text has a rule of its own, which parseInput's check of the
 * output leaves alone: the sign-up's answers (refused naming the question) and attribution (bad
 * characters dropped), taken as they come for code of their own to read, and an invitation code, which is
 * only hashed and compared (one PostgreSQL could not store is a code that is not valid, as SPEC.md says).
 */
const OWN_TEXT_RULE = new WeakSet<z.ZodType>();

export function ownTextRule<T extends z.ZodType>(schema: T): T {
  OWN_TEXT_RULE.add(schema);
  return schema;
}

/**
 * Where the output of a schema holds text PostgreSQL cannot store (libs/shared text.ts), as the path of
 * its field, joined with dots; undefined when it holds none. Every parsed input passes here, so that no
 * handler is handed such text, whichever route it serves.
 */
export function unstorableField(schema: z.ZodType, output: unknown): string | undefined {
  const shape = schema instanceof z.ZodObject ? (schema.shape as Record<string, z.ZodType>) : {};
  const checked = typeof output === 'object' && output !== null && !Array.isArray(output)
    ? Object.fromEntries(Object.entries(output).filter(([key]) => !(Object.hasOwn(shape, key) && OWN_TEXT_RULE.has(shape[key]))))
    : output;
  return unstorableTextAt(checked)?.join('.');
}

/**
 * Parses a value with a schema; the first problem becomes 400 invalid_request naming the field. A body
 * (what may be stored) that holds text PostgreSQL cannot store is refused too; a query only selects,
 * and its fields keep their own answers (a cursor of NULs is invalid_cursor).
 */
export function parseInput<T extends z.ZodType>(schema: T, value: unknown, where: string): z.output<T> {
  if (value === UNREADABLE_BODY) throw new ApiError('invalid_request', 'The request body could not be read as JSON.');
  const result = schema.safeParse(value);
  if (result.success) {
    const param = where === 'query' ? undefined : unstorableField(schema, result.data);
    if (param === undefined) return result.data;
    throw new ApiError('invalid_request', param ? `${where} field ${param}: ${UNSTORABLE_TEXT}.` : `The ${where} ${UNSTORABLE_TEXT}.`, { param: param || undefined });
  }
  const issue = result.error.issues[0];
  const param = issue.path.join('.') || undefined;
  throw new ApiError(
    'invalid_request',
    param ? `${where} field ${param}: ${issue.message}.` : `The ${where} is not valid: ${issue.message}.`,
    { param },
  );
}

/**
 * The JSON body of an API request, parsed with a schema. Read after the key check (the decorators run
 * after the guards), so that authentication is checked before validation (DESIGN.md §3).
 */
export function jsonBody<T extends z.ZodType>(schema: T, request: FastifyRequest): z.output<T> {
  const type = String(request.headers['content-type'] ?? '');
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    throw new ApiError('invalid_request', 'Send the request body as application/json.');
  }
  return parseInput(schema, request.body, 'body');
}

/** The query parameters of a request, parsed with a schema. */
export function query<T extends z.ZodType>(schema: T, request: FastifyRequest): z.output<T> {
  return parseInput(schema, request.query, 'query');
}

const JsonBodyParam = createParamDecorator(({ shape }: { shape: z.ZodType }, context: ExecutionContext) =>
  jsonBody(shape, context.switchToHttp().getRequest<FastifyRequest>()),
);

const QueryParam = createParamDecorator(({ shape }: { shape: z.ZodType }, context: ExecutionContext) =>
  query(shape, context.switchToHttp().getRequest<FastifyRequest>()),
);

// Nest takes a decorator argument with a transform() method for a pipe (zod schemas have one) and
// { schema } for its own validation; ours goes in { shape } so that parseInput gives our error body.
export const JsonBody = (schema: z.ZodType) => JsonBodyParam({ shape: schema });

/** Query parameters parsed with a schema; repeated parameters are refused rather than guessed at. */
export const Query = (schema: z.ZodType) => QueryParam({ shape: schema });

/** A query value that appears once: Fastify turns a repeated parameter into an array. */
export const single = z.string({ message: 'expected a single value' });

/** A JSON number that is a whole number from `min` to `max`, with the message the API answers otherwise. */
export const wholeNumber = (min: number, max: number) => {
  const message = `expected a whole number from ${min} to ${max}`;
  return z.number({ message }).int(message).min(min, message).max(max, message);
};

/**
 * A whole number from `min` to `max` in a query parameter, `fallback` when it is not given. It is text
 * on the wire, so it is read as digits; the OpenAPI document shows it as the integer it must spell.
 */
export const queryWholeNumber = (min: number, max: number, fallback: number) =>
  single
    .regex(new RegExp(`^\\d{1,${String(max).length}}$`), `expected a whole number from ${min} to ${max}`)
    .transform(Number)
    .pipe(wholeNumber(min, max))
    .default(fallback)
    .meta({
      override: ({ jsonSchema }: ZodOpenApiOverrideMetaContext) => {
        delete jsonSchema.pattern;
        Object.assign(jsonSchema, { type: 'integer', minimum: min, maximum: max, default: fallback });
      },
    });
