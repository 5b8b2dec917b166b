import { createHmac, hash, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

export type IdPrefix = 'ent' | 'evt' | 'we' | 'dlv' | 'prod' | 'key' | 'usr' | 'lh' | 'rfl' | 'rel' | 'run' | 'tpl';

/**
 * Random bytes for ids, tokens and codes, cut from a block the CSPRNG fills 4 KiB at a time, as Node's
 * randomUUID does: a call of randomBytes costs some 3 µs however few bytes it gives, and a mail or a
 * sign-up takes several. Every byte is given out once.
 */
const RANDOM_BLOCK = 4096;
let block = Buffer.alloc(0);
let taken = 0;

function random(size: number): Buffer {
  if (taken + size > block.length) {
    block = randomBytes(RANDOM_BLOCK);
    taken = 0;
  }
  return block.subarray(taken, (taken += size));
}

/** A prefixed id such as ent_5f0c…: 96 random bits, hex. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${random(12).toString('hex')}`;
}

/** A URL-safe secret token with 256 random bits (confirmation, unsubscribe and invitation codes, keys). */
export function newToken(prefix = ''): string {
  return prefix + random(32).toString('base64url');
}

/** Tokens and keys are stored only as their SHA-256 hash. */
export function hashToken(token: string): Buffer {
  return hash('sha256', token, 'buffer');
}

/** hashToken as hex, for in-memory lookups: Node makes it at a third of the cost of the Buffer. */
export function hashTokenHex(token: string): string {
  return hash('sha256', token, 'hex');
}

/** A given secret against the expected one, compared as hashes: neither its content nor its length leaks through timing. */
export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(hashToken(given), hashToken(expected));
}

const REFERRAL_ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789';

/** A short, readable referral code: 12 characters of an alphabet without look-alikes (60 bits). */
export function newReferralCode(): string {
  return Array.from(random(12), (byte) => REFERRAL_ALPHABET[byte % REFERRAL_ALPHABET.length]).join('');
}

/** One key per key of ENCRYPTION_KEY's ring, derived for one purpose, so no two purposes share a key. */
export function derivedKeys(encryptionKey: Buffer | Buffer[], purpose: string): Buffer[] {
  return [encryptionKey].flat().map((key) => Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), purpose, 32)));
}

/**
 * HMAC signatures under keys derived from ENCRYPTION_KEY's ring for one purpose: the first key signs,
 * each verifies, so what was signed before a rotation still verifies after it. Nothing is stored.
 */
export class SigningRing {
  private readonly keys: Buffer[];

  /** `bytes`: how much of the HMAC a signature keeps (a token a person carries may be shorter). */
  constructor(encryptionKey: Buffer | Buffer[], purpose: string, private readonly bytes = 32) {
    this.keys = derivedKeys(encryptionKey, purpose);
  }

  /** The payload's signature, base64url. */
  sign(payload: string): string {
    return this.mac(this.keys[0], payload).toString('base64url');
  }

  /** Whether `signature` is the payload's under some key of the ring, compared in constant time. */
  verify(payload: string, signature: string): boolean {
    const given = Buffer.from(signature, 'base64url');
    return given.length === this.bytes && given.toString('base64url') === signature && this.keys.some((key) => timingSafeEqual(this.mac(key, payload), given));
  }

  private mac(key: Buffer, payload: string): Buffer {
    return createHmac('sha256', key).update(payload).digest().subarray(0, this.bytes);
  }
}
