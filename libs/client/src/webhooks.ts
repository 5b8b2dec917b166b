import type { WebhookEvent } from './types.js';

export type WebhookVerificationFailure =
  | 'missing_header'
  | 'malformed_header'
  | 'no_matching_signature'
  | 'timestamp_too_old'
  | 'timestamp_too_new'
  | 'malformed_body';

/** The delivery cannot be trusted; `reason` says why. Answer it with a 4xx and do nothing else. */
export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';

  constructor(
    readonly reason: WebhookVerificationFailure,
    message: string,
  ) {
    super(message);
  }
}

export interface VerifyWebhookOptions {
  /** How far the signature's time may be from now, either way. Default 300 (five minutes). */
  toleranceSeconds?: number;
  /** The time to check against; the clock's by default. */
  now?: Date;
}

const encoder = new TextEncoder();

/**
 * Checks a delivery's Service-Signature header (`t=<unix seconds>,v1=<hex>[,v1=<hex>]`) against the
 * endpoint's signing secret and returns the event. Each v1 is an HMAC-SHA256, keyed with the whole
 * secret string, over `<t>.<raw body>`; one matching v1 is enough (after a secret rotation a delivery
 * carries one per secret). Pass the body exactly as it arrived: parsed and serialised again, it no
 * longer matches.
 */
export async function verifyWebhook(
  rawBody: string | Uint8Array,
  signatureHeader: string | null | undefined,
  secret: string,
  { toleranceSeconds = 300, now = new Date() }: VerifyWebhookOptions = {},
): Promise<WebhookEvent> {
  if (typeof secret !== 'string' || !secret) throw new TypeError('verifyWebhook: secret must be the endpoint\'s signing secret (whsec_…).');
  if (!signatureHeader) throw new WebhookVerificationError('missing_header', 'The delivery has no Service-Signature header.');
  const { timestamp, signatures } = parseHeader(signatureHeader);
  const body = typeof rawBody === 'string' ? encoder.encode(rawBody) : rawBody;
  const signed = concat(encoder.encode(`${timestamp}.`), body);
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
  // crypto.subtle.verify compares in constant time.
  const matches = await Promise.all(signatures.map((signature) => crypto.subtle.verify('HMAC', key, signature, signed)));
  if (!matches.includes(true)) throw new WebhookVerificationError('no_matching_signature', 'No signature of the delivery matches the secret.');
  // Checked after the signature, so that a wrong time means a genuine delivery sent again, or a wrong clock.
  const age = Math.floor(now.getTime() / 1000) - timestamp;
  if (age > toleranceSeconds) throw new WebhookVerificationError('timestamp_too_old', `The delivery was signed ${age} s ago, more than ${toleranceSeconds} s.`);
  if (-age > toleranceSeconds) throw new WebhookVerificationError('timestamp_too_new', `The delivery was signed ${-age} s ahead of this clock, more than ${toleranceSeconds} s.`);
  try {
    return JSON.parse(typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody)) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('malformed_body', 'The delivery\'s body is not JSON.');
  }
}

function parseHeader(header: string): { timestamp: number; signatures: Uint8Array<ArrayBuffer>[] } {
  const parts = header.split(',').map((part) => part.trim());
  const times = parts.filter((part) => part.startsWith('t=')).map((part) => part.slice(2));
  const signatures = parts.filter((part) => part.startsWith('v1=')).map((part) => fromHex(part.slice(3)));
  if (times.length !== 1 || !/^\d{1,12}$/.test(times[0]) || signatures.length === 0 || signatures.includes(null)) {
    throw new WebhookVerificationError('malformed_header', 'The Service-Signature header is not t=<unix seconds>,v1=<hex>[,v1=<hex>…].');
  }
  return { timestamp: Number(times[0]), signatures: signatures as Uint8Array<ArrayBuffer>[] };
}

function fromHex(hex: string): Uint8Array<ArrayBuffer> | null {
  if (!/^(?:[0-9a-f]{2})+$/i.test(hex)) return null;
  return Uint8Array.from(hex.match(/../g)!, (pair) => parseInt(pair, 16));
}

function concat(head: Uint8Array, tail: Uint8Array): Uint8Array<ArrayBuffer> {
  const joined = new Uint8Array(head.length + tail.length);
  joined.set(head);
  joined.set(tail, head.length);
  return joined;
}
