import { SigningRing } from './secrets';

/** How long a my-data link works from its mail: long enough to open the mail, short enough that an old mail is no key. */
export const MY_DATA_LINK_MS = 60 * 60_000;

/**
 * The token of a my-data link: the entry's id and the link's end, signed with an HMAC under a key
 * derived from ENCRYPTION_KEY (as list cursors are), so nothing is stored for it and the mailer can make
 * it alone. A link outlives neither its end nor its entry; a rotation of ENCRYPTION_KEY keeps the links
 * of the last hour working (the first key signs, each verifies).
 */
export class MyDataLinks {
  private readonly ring: SigningRing;

  constructor(encryptionKey: Buffer | Buffer[]) {
    this.ring = new SigningRing(encryptionKey, 'waitlist my-data links');
  }

  sign(entryId: string, expiresAt: Date): string {
    const payload = `${entryId}.${expiresAt.getTime().toString(36)}`;
    return `${payload}.${this.ring.sign(payload)}`;
  }

  /** The entry id of a token this service signed and whose end is after `now`; null for anything else. */
  open(token: string, now: Date): string | null {
    const parts = token.split('.');
    if (parts.length !== 3) return null;
    const [entryId, end, signature] = parts;
    const payload = `${entryId}.${end}`;
    if (!this.ring.verify(payload, signature) || !(parseInt(end, 36) > now.getTime())) return null;
    return entryId;
  }
}
