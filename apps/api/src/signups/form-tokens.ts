import { SigningRing } from '@app/shared';
import type { ProductScope } from '../common/scope';

const TOKEN = /^([0-9a-z]{1,11})\.([A-Za-z0-9_-]{22})$/;

/**
 * A form's "shown at" token: when the service showed a product's form (the hosted form, the script-tag
 * form's words), signed so that the sign-up that brings it back cannot claim an earlier time. Signed
 * on ENCRYPTION_KEY's ring, so a form shown before a rotation still counts. Nothing is stored.
 */
export class FormTokens {
  private readonly ring: SigningRing;

  constructor(encryptionKey: Buffer[]) {
    // 128 bits: the token rides in every form.
    this.ring = new SigningRing(encryptionKey, 'waitlist form tokens', 16);
  }

  issue(scope: ProductScope, shownAt: Date): string {
    const at = shownAt.getTime().toString(36);
    return `${at}.${this.ring.sign(signed(scope, at))}`;
  }

  /** When the form of this product and mode was shown, or null for a token the service did not sign for them. */
  shownAt(scope: ProductScope, token: string): Date | null {
    const [, at, mac] = TOKEN.exec(token) ?? [];
    if (at === undefined || mac === undefined) return null;
    return this.ring.verify(signed(scope, at), mac) ? new Date(parseInt(at, 36)) : null;
  }
}

const signed = ({ productId, mode }: ProductScope, at: string) => `${productId}|${mode}|${at}`;
