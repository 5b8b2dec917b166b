import { WaitlistApiError, WaitlistClient, WaitlistClientOptions } from '@waitlist/client';
import { invitationStack } from './invitations';
import { validatingFetch } from './openapi';
import { Stack } from './stack';

/**
 * Every answer the client gets from the service is checked against the OpenAPI document. The client
 * would take the check's error for a broken connection (and might try again), so each one is also
 * kept here, and every test ends with none.
 */
export const undocumented: string[] = [];
const validating = validatingFetch();
export const checkedFetch: typeof fetch = async (input, init) => {
  try {
    return await validating(input, init);
  } catch (error) {
    // fetch's own failures are TypeErrors (of Node's realm, not jest's: so by name); anything else is the document's check.
    if ((error as Error).name !== 'TypeError') undocumented.push(String(error));
    throw error;
  }
};

/** What the client sent and what it got, one row per HTTP request. */
export interface Sent {
  method: string;
  url: string;
  headers: Headers;
  status?: number;
  replayed?: boolean;
  retryAfter?: string | null;
  sentAt: number;
  answeredAt?: number;
}

export type Fetch = typeof fetch;

/** A fetch (by default the checked one) that records every request the client makes and its answer. */
export function recording(inner: Fetch = checkedFetch): { fetch: Fetch; sent: Sent[] } {
  const sent: Sent[] = [];
  const wrapped: Fetch = async (input, init) => {
    const row: Sent = { method: init?.method ?? 'GET', url: String(input), headers: new Headers(init?.headers), sentAt: Date.now() };
    sent.push(row);
    const response = await inner(input, init);
    row.answeredAt = Date.now();
    row.status = response.status;
    row.replayed = response.headers.get('idempotent-replayed') === 'true';
    row.retryAfter = response.headers.get('retry-after');
    return response;
  };
  return { fetch: wrapped, sent };
}

/** The error a promise rejects with (fails when it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => {
      throw new Error(`Expected a rejection, got ${JSON.stringify(value)}`);
    },
    (error: unknown) => error,
  );
}

/** The WaitlistApiError a call rejects with, checked to carry neither the key nor a code. */
export async function apiError(promise: Promise<unknown>, secrets: string[]): Promise<WaitlistApiError> {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(WaitlistApiError);
  for (const secret of secrets) expect(`${String(error)} ${JSON.stringify(error)}`).not.toContain(secret);
  return error as WaitlistApiError;
}

/** Matches null or any string, as the nullable fields of an entry hold. */
const stringOrNull = { asymmetricMatch: (value: unknown) => value === null || typeof value === 'string', toString: () => 'string or null' };

export const ENTRY_SHAPE = {
  id: expect.stringMatching(/^ent_/),
  email: expect.any(String),
  state: expect.stringMatching(/^(pending|confirmed|invited|redeemed)$/),
  createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
  confirmedAt: stringOrNull,
  invitedAt: stringOrNull,
  redeemedAt: stringOrNull,
  referralCode: stringOrNull,
  referrals: expect.any(Number),
};

/** The service the client's tests call, with the webhooks app to deliver to a local receiver, and its base URL. */
export async function clientStack(): Promise<{ stack: Stack; base: string }> {
  const { stack } = await invitationStack({ apps: ['api', 'mailer', 'webhooks'], env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
  return { stack, base: await stack.url() };
}

/** A product of its own for each test, and a client of its test secret key. */
export async function clientOf(stack: Stack, base: string, options: Partial<WaitlistClientOptions> = {}) {
  const product = await stack.createProduct();
  const secretKey = product.keys.test.secret;
  const client = new WaitlistClient({ baseUrl: base, secretKey, fetch: checkedFetch, ...options });
  return { product, pk: product.keys.test.publishable, secretKey, client };
}
