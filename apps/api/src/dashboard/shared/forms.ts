import { isSignatureFormat, normalizeEmail, SignatureFormat, UNSTORABLE_TEXT, unstorableTextAt } from '@app/shared';
import { z } from 'zod';
import { ApiError } from '../../common/api-error';
import { parseInput, unstorableField } from '../../common/validation';
import { LIST_QUERY } from '../../entries/entries.dto';
import type { DetailFilters, ListQuery } from '../../entries/entries.service';
import { fieldWords } from './messages';

/** A form field as text; posted twice, or as JSON that is not a string, it reads as empty. */
export const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/**
 * A whole number as a form's number field posts it: digits only (JSON true, [1], 0x10 or 1e3 are none),
 * else NaN, which the API's schema then refuses.
 */
export function digits(value: unknown): number {
  return typeof value === 'string' && /^\d{1,7}$/.test(value.trim()) ? Number(value) : NaN;
}

/** A form parsed with a schema; the first problem is invalid_request naming its field, in the dashboard's words. */
export function parseForm<T extends z.ZodType>(schema: T, form: unknown): z.output<T> {
  const result = schema.safeParse(form);
  if (result.success) return refuseUnstorable(result.data, unstorableField(schema, result.data));
  const issue = result.error.issues[0];
  const param = issue.path.length ? String(issue.path[0]) : undefined;
  throw new ApiError('invalid_request', (param && fieldWords(param)) || `${issue.message}.`, { param });
}

/** A form's fields as given, or invalid_request naming the first field whose text PostgreSQL cannot store (libs/shared text.ts). */
export function storableForm<T>(fields: T): T {
  return refuseUnstorable(fields, unstorableTextAt(fields)?.join('.'));
}

/** The fields, or invalid_request naming the field at `param`, the path where unstorable text was found. */
function refuseUnstorable<T>(fields: T, param: string | undefined): T {
  if (param === undefined) return fields;
  const field = param.split('.')[0];
  if (!field) throw new ApiError('invalid_request', `The form ${UNSTORABLE_TEXT}.`);
  throw new ApiError('invalid_request', `The field “${field}” ${UNSTORABLE_TEXT}.`, { param: field });
}

/**
 * The entries list's filters: the API's, except that the search box matches part of an address
 * when what was typed is not a whole one.
 */
export function entryFilters(query: Record<string, unknown>, paged: boolean): ListQuery {
  const search = typeof query.email === 'string' ? query.email.trim().toLowerCase().slice(0, 254) : '';
  // No address holds a control character, and PostgreSQL text cannot hold a NUL at all.
  if (/\p{Cc}/u.test(search)) throw new ApiError('invalid_request', 'Search for an address or a part of one, without control characters.');
  const filters = Object.entries(query).filter(([key, value]) => value !== '' && key !== 'email' && (paged || key !== 'cursor'));
  const details = detailFilters(query);
  const parsed = { ...parseInput(LIST_QUERY, Object.fromEntries(filters), 'query'), ...(details ? { details } : {}) };
  if (!search) return parsed;
  const email = normalizeEmail(search);
  return email ? { ...parsed, email } : { ...parsed, emailContains: search };
}

/** The entries list's filters on answers and attribution, as the list, its CSV link and its bulk forms carry them. */
export const DETAIL_FILTER_FIELDS = ['utm_source', 'utm_campaign', 'question', 'answer'] as const;

/** The filters on entry_details, or none; an answer filter needs the question and the answer. */
function detailFilters(query: Record<string, unknown>): DetailFilters | undefined {
  const [utmSource, utmCampaign, question, answer] = DETAIL_FILTER_FIELDS.map((field) => {
    const value = text(query[field]).trim();
    if (value.length > 200 || /\p{Cc}/u.test(value)) throw new ApiError('invalid_request', 'Filter by text of at most 200 characters, without control characters.', { param: field });
    return value || undefined;
  });
  if ((question === undefined) !== (answer === undefined)) throw new ApiError('invalid_request', 'To filter by an answer, choose the question and type the answer.', { param: 'answer' });
  const filters: DetailFilters = { utmSource, utmCampaign, answer: question && answer ? { key: question, value: answer } : undefined };
  return utmSource || utmCampaign || filters.answer ? filters : undefined;
}

/** A field a form may post several times (checkboxes): its text values. */
export const texts = (value: unknown): string[] => ([] as unknown[]).concat(value ?? []).filter((item): item is string => typeof item === 'string');

/** The endpoint form's signature format: ours when the form sends none, and nothing but a known one otherwise. */
export function signatureFormatField(value: unknown): SignatureFormat | undefined {
  if (value === undefined) return undefined;
  const format = text(value);
  if (!isSignatureFormat(format)) {
    throw new ApiError('invalid_request', 'Choose how deliveries are signed: ours (Service-Signature) or Standard Webhooks.', { param: 'signatureFormat' });
  }
  return format;
}
