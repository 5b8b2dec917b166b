import type { MailFeedback } from '@app/shared';
import type { IncomingHttpHeaders } from 'node:http';
import { z } from 'zod';
import { ApiError } from '../common/api-error';
import { parseInput } from '../common/validation';

/** The providers with a hook; the others of MailFeedback (smtp) report without one. */
export type HookProvider = Exclude<MailFeedback['provider'], 'smtp'>;

/** A provider's call, as it arrived: a signature covers the body's bytes, never a re-serialised body. */
export interface HookCall {
  headers: IncomingHttpHeaders;
  rawBody: Buffer | undefined;
}

/** What a verified call reports. */
export interface Delivery {
  feedback: MailFeedback[];
  /** A key the provider never sends twice (Mailgun's token): a call carrying one seen before is refused. */
  onceKey?: string;
}

/** One provider's hook: verifies a call as the provider documents it, then reads its bounces and complaints. */
export interface MailHook {
  provider: HookProvider;
  /** The delivery; 401 unauthorized when the call does not prove it comes from the provider, 400 when it cannot be read. */
  receive(call: HookCall): Promise<Delivery>;
}

export function unauthorized(message: string): ApiError {
  return new ApiError('unauthorized', message);
}

/** The body as JSON; 400 when it is none (whatever the content type: SNS sends text/plain). */
export function jsonBody(call: HookCall): unknown {
  if (!call.rawBody?.length) throw new ApiError('invalid_request', 'The request has no body.');
  try {
    return JSON.parse(call.rawBody.toString('utf8'));
  } catch {
    throw new ApiError('invalid_request', 'The request body could not be read as JSON.');
  }
}

/** The payload through the text rule: only the fields a schema keeps are checked, so a provider's other fields never refuse a call. */
export function readPayload<T extends z.ZodType>(schema: T, value: unknown, where = 'body'): z.output<T> {
  return parseInput(schema, value, where);
}

/** One header's value, when it was sent once. */
export function header(call: HookCall, name: string): string | undefined {
  const value = call.headers[name];
  return typeof value === 'string' ? value : undefined;
}

/** An ISO 8601 timestamp with its offset, read as a Date. */
export const ISO_TIME = z.iso.datetime({ offset: true, message: 'expected an ISO 8601 timestamp' }).transform((text) => new Date(text));

/**
 * One event that names several recipients becomes one feedback per recipient, each with an id of its
 * own (the event's id, #1, #2… when there are several), since feedback is applied once per id.
 */
export function perRecipient(provider: HookProvider, eventId: string, kind: MailFeedback['kind'], addresses: string[], at: Date): MailFeedback[] {
  return addresses.map((address, index) => ({ provider, eventId: addresses.length > 1 ? `${eventId}#${index + 1}` : eventId, kind, address, at }));
}
