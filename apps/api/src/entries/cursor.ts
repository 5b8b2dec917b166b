import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig, SigningRing } from '@app/shared';
import { ApiError } from '../common/api-error';

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
  /** On ENCRYPTION_KEY's ring: a page being read survives a rotation. */
  private readonly ring: SigningRing;

  constructor(secret: Buffer | Buffer[]) {
    this.ring = new SigningRing(secret, 'waitlist list cursor');
  }

  encode(position: CursorPosition, context: string): string {
    const payload = Buffer.from(JSON.stringify([position.createdAt.getTime(), position.id])).toString('base64url');
    return `${payload}.${this.ring.sign(`${context}\n${payload}`)}`;
  }

  /** The position, or null for anything this codec did not issue for this context. */
  decode(cursor: string, context: string): CursorPosition | null {
    const [payload, signature, extra] = cursor.split('.');
    if (!payload || !signature || extra !== undefined) return null;
    if (!this.ring.verify(`${context}\n${payload}`, signature)) return null;
    try {
      const [time, id] = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown[];
      if (typeof time !== 'number' || typeof id !== 'string') return null;
      return { createdAt: new Date(time), id };
    } catch {
      return null;
    }
  }
}

/** A page of a list read newest first, and the cursor of the next page. */
export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

/** The cursors of the API's lists (entries, an entry's referrals and history), under ENCRYPTION_KEY's ring. */
@Injectable()
export class ListCursors extends CursorCodec {
  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    super(config.ENCRYPTION_KEY);
  }

  /** Where a page starts: null for the first page, invalid_cursor for a cursor not issued for this listing. */
  start(cursor: string | undefined, context: string): CursorPosition | null {
    if (cursor === undefined) return null;
    const position = this.decode(cursor, context);
    if (!position) throw new ApiError('invalid_cursor', 'The cursor was not issued for this listing; start again without it.', { param: 'cursor' });
    return position;
  }

  /** The page of `rows`, read with one more than `limit` to know whether another page follows. */
  page<Row, View>(rows: Row[], limit: number, context: string, positionOf: (row: Row) => CursorPosition, view: (row: Row) => View): Page<View> {
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return { data: page.map(view), nextCursor: rows.length > limit && last ? this.encode(positionOf(last), context) : null };
  }
}
