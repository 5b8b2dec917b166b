import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import type { ProductScope } from '../common/scope';

const TOKEN = /^([0-9a-z]{1,11})\.([A-Za-z0-9_-]{22})$/;

/**
 * A form's "shown at" token: when the service showed a product's form (the hosted form, the script-tag
 * form's words), signed so that the sign-up that brings it back cannot claim an earlier time. An HMAC
 * under keys derived from ENCRYPTION_KEY's ring, like AddressKeys: the first key signs, each checks, so
 * a form shown before a rotation still counts. Nothing is stored.
 */
export class FormTokens {
  private readonly keys: Buffer[];

  constructor(encryptionKey: Buffer[]) {
    this.keys = encryptionKey.map((key) => Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), 'waitlist form tokens', 32)));
  }

  issue(scope: ProductScope, shownAt: Date): string {
    const at = shownAt.getTime().toString(36);
    return `${at}.${this.mac(this.keys[0], scope, at).toString('base64url')}`;
  }

  /** When the form of this product and mode was shown, or null for a token the service did not sign for them. */
  shownAt(scope: ProductScope, token: string): Date | null {
    const [, at, mac] = TOKEN.exec(token) ?? [];
    if (at === undefined || mac === undefined) return null;
    const given = Buffer.from(mac, 'base64url');
    return this.keys.some((key) => timingSafeEqual(this.mac(key, scope, at), given)) ? new Date(parseInt(at, 36)) : null;
  }

  private mac(key: Buffer, { productId, mode }: ProductScope, at: string): Buffer {
    return createHmac('sha256', key).update(`${productId}|${mode}|${at}`).digest().subarray(0, 16);
  }
}
