import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/** Where a page of the newest-first list ends: the last entry's createdAt and id. */
export interface CursorPosition {
  createdAt: Date;
  id: string;
}

/**
 * Opaque, tamper-evident list cursors: the position plus an HMAC over it and over the context the
 * cursor was issued for (product, mode and filters), so a cursor is only good for the same listing.
 */
export class CursorCodec {
  /** One per key of ENCRYPTION_KEY's ring: the first signs, each verifies (a page being read survives a rotation). */
  private readonly keys: Buffer[];

  constructor(secret: Buffer | Buffer[]) {
    this.keys = [secret].flat().map((key) => Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), 'waitlist list cursor', 32)));
  }

  encode(position: CursorPosition, context: string): string {
    const payload = Buffer.from(JSON.stringify([position.createdAt.getTime(), position.id])).toString('base64url');
    return `${payload}.${this.sign(this.keys[0], payload, context)}`;
  }

  /** The position, or null for anything this codec did not issue for this context. */
  decode(cursor: string, context: string): CursorPosition | null {
    const [payload, signature, extra] = cursor.split('.');
    if (!payload || !signature || extra !== undefined) return null;
    const given = Buffer.from(signature);
    const signedBy = (key: Buffer) => {
      const expected = Buffer.from(this.sign(key, payload, context));
      return given.length === expected.length && timingSafeEqual(given, expected);
    };
    if (!this.keys.some(signedBy)) return null;
    try {
      const [time, id] = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown[];
      if (typeof time !== 'number' || typeof id !== 'string') return null;
      return { createdAt: new Date(time), id };
    } catch {
      return null;
    }
  }

  private sign(key: Buffer, payload: string, context: string): string {
    return createHmac('sha256', key).update(`${context}\n${payload}`).digest('base64url');
  }
}
