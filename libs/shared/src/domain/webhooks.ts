import ipaddr from 'ipaddr.js';
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import { derivedKeys, newToken } from './secrets';

/**
 * How deliveries to an endpoint are signed, chosen when it is created: service, our Service-Signature
 * header (the default); standard, the Standard Webhooks headers (webhook-id, webhook-timestamp,
 * webhook-signature).
 */
export const SIGNATURE_FORMATS = ['service', 'standard'] as const;
export type SignatureFormat = (typeof SIGNATURE_FORMATS)[number];

export const isSignatureFormat = (value: string): value is SignatureFormat => (SIGNATURE_FORMATS as readonly string[]).includes(value);

const SECRET_PREFIX = 'whsec_';

/**
 * A new signing secret. Ours: 256 random bits in base64url, used whole as the HMAC key. Standard
 * Webhooks: the key's bytes in standard base64, which its libraries decode; 32 bytes, the length of
 * a SHA-256 output, the shortest key HMAC-SHA256 advises.
 */
export function newSigningSecret(format: SignatureFormat): string {
  return format === 'service' ? newToken(SECRET_PREFIX) : SECRET_PREFIX + randomBytes(32).toString('base64');
}

/**
 * The Service-Signature header: t=<unix seconds>,v1=<hex>[,v1=<hex>], each v1 an HMAC-SHA256 keyed
 * with the whole secret string (whsec_…) over `<t>.<raw body>`, as Stripe's verifier expects.
 */
export function signatureHeader(secrets: string[], body: string, unixSeconds: number): string {
  const signatures = secrets.map((secret) => `v1=${createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex')}`);
  return [`t=${unixSeconds}`, ...signatures].join(',');
}

/** What one attempt is signed over; the same event id goes with every attempt of a delivery. */
export interface SignedMessage {
  eventId: string;
  body: string;
  unixSeconds: number;
}

/**
 * A delivery's id, derived from its endpoint and event: a delivery made again after its process died
 * before logging it carries the same id.
 */
export function deliveryId(endpointId: string, eventId: string): string {
  return `dlv_${createHash('sha256').update(`${endpointId} ${eventId}`).digest('hex').slice(0, 24)}`;
}

/**
 * The headers that sign one attempt in the endpoint's format, one signature per secret (the current
 * one first; during a rotation's overlap the previous one too). Standard Webhooks signs
 * `<webhook-id>.<webhook-timestamp>.<body>` with the secret's decoded bytes; its webhook-id is the
 * event id (docs/decisions/webhooks.md).
 */
export function signingHeaders(format: SignatureFormat, secrets: string[], { eventId, body, unixSeconds }: SignedMessage): Record<string, string> {
  if (format === 'service') return { 'service-signature': signatureHeader(secrets, body, unixSeconds) };
  const signatures = secrets.map((secret) => {
    const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
    return `v1,${createHmac('sha256', key).update(`${eventId}.${unixSeconds}.${body}`).digest('base64')}`;
  });
  return { 'webhook-id': eventId, 'webhook-timestamp': String(unixSeconds), 'webhook-signature': signatures.join(' ') };
}

/**
 * Secrets at rest (AES-256-GCM under keys derived from ENCRYPTION_KEY's ring: the first seals, each
 * opens what it sealed): webhook signing secrets by default; another purpose derives its own keys, so
 * one kind of sealed text never opens as another.
 */
/** What webhook signing secrets are sealed for (SecretBox's purpose). */
export const WEBHOOK_SECRETS = 'waitlist webhook secrets';

export class SecretBox {
  /** One per key of the ring, the sealing one first. */
  private readonly keys: Buffer[];

  constructor(encryptionKey: Buffer | Buffer[], purpose = WEBHOOK_SECRETS) {
    this.keys = derivedKeys(encryptionKey, purpose);
  }

  seal(secret: string): Buffer {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.keys[0], iv);
    const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), sealed]);
  }

  /** The secret, by whichever key of the ring sealed it; throws when none did (or the box was altered). */
  open(box: Buffer): string {
    for (const key of this.keys) {
      const secret = openWith(key, box);
      if (secret !== null) return secret;
    }
    throw new Error('No key of ENCRYPTION_KEY opens this secret');
  }

  /** Whether the box is sealed with the ring's first key, the one seal() uses. */
  sealedWithFirst(box: Buffer): boolean {
    return openWith(this.keys[0], box) !== null;
  }
}

/** The box opened with this key, or null when the key did not seal it (or the box was altered). */
function openWith(key: Buffer, box: Buffer): string | null {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, box.subarray(0, 12));
    decipher.setAuthTag(box.subarray(12, 28));
    return Buffer.concat([decipher.update(box.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}

/** ::a.b.c.d, deprecated (RFC 4291) and unknown to ipaddr.js, which calls it unicast. */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

/**
 * True for an address on the public internet: not loopback, private, link-local, CGNAT, multicast, …
 * An IPv6 address that carries an IPv4 address could lead to a private one: an IPv4-mapped address is
 * judged by its IPv4 address; IPv4-compatible, IPv4-translated, NAT64, 6to4 and Teredo addresses are
 * refused whatever they carry (ipaddr.js names all of these ranges but the IPv4-compatible one).
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.parse(address);
  if (parsed instanceof ipaddr.IPv4) return parsed.range() === 'unicast';
  if (parsed.isIPv4MappedAddress()) return parsed.toIPv4Address().range() === 'unicast';
  return parsed.range() === 'unicast' && !parsed.match(IPV4_COMPATIBLE);
}

/** Why a URL may not receive webhooks (null when it may): https and public addresses only, unless allowed. */
export function webhookUrlProblem(url: string, allowPrivate: boolean): string | null {
  // The URL parser drops tabs and line breaks that would be stored as typed; a NUL cannot be stored at all.
  if (/\p{Cc}/u.test(url)) return 'cannot hold control characters';
  if (!URL.canParse(url)) return 'is not a URL';
  const parsed = new URL(url);
  if (parsed.protocol !== 'https:' && !(allowPrivate && parsed.protocol === 'http:')) return 'must be an https URL';
  if (parsed.username || parsed.password) return 'must not carry credentials';
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate && (host === 'localhost' || host.endsWith('.localhost') || (ipaddr.isValid(host) && !isPublicAddress(host)))) {
    return 'must point at a public address';
  }
  return null;
}
