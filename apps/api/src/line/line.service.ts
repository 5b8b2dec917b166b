import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { canonicalEmail, Entry, EntryRecord, estimatedWaitDays, hashToken, IN_LINE_ORDER, LINE_BUCKET_KEYS, LINE_KEY_SQL, lineBucket, lineKey, lineOrder, Product, toEntry, WAIT_WINDOW_DAYS } from '@app/shared';
import { DataSource, EntityManager } from 'typeorm';
import { ApiError } from '../common/api-error';
import type { ProductScope } from '../common/scope';
import { notFound } from '../entries/entries.service';
import type { Standing } from './line.dto';

/**
 * The line: confirmed entries not invited yet, in line order (libs/shared/src/domain/line.ts). Every
 * query that puts an entry in line, moves it, counts the places ahead of it or takes the front lives
 * here, each ordered by IN_LINE_ORDER, which is the entries_line index's order.
 */
@Injectable()
export class LineService {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * A confirming entry joins the line at the next confirmation number of its product and mode, in the
   * caller's transaction; a referral that counts moves its referrer up by the product's referral places.
   * The counter row is held until the commit, so the referral places read here cannot change meanwhile
   * (see rekey). Returns whether the referral counted.
   */
  async join(manager: EntityManager, entry: EntryRecord): Promise<boolean> {
    const [{ last_seq: seq }]: { last_seq: string }[] = await manager.query(
      `INSERT INTO line_counters (product_id, mode, last_seq) VALUES ($1, $2, 1)
       ON CONFLICT (product_id, mode) DO UPDATE SET last_seq = line_counters.last_seq + 1
       RETURNING last_seq`,
      [entry.productId, entry.mode],
    );
    const { referralPlaces: places } = await manager.getRepository(Product).findOneByOrFail({ id: entry.productId });
    const counts = entry.referredBy !== null && (await this.referralCounts(manager, entry, entry.referredBy));
    entry.confirmationSeq = Number(seq);
    entry.lineKey = lineKey({ confirmationSeq: entry.confirmationSeq, referrals: entry.referrals, movedUp: entry.movedUp }, places);
    if (counts) {
      await manager.query(`UPDATE entries SET referrals = referrals + 1, line_key = line_key - $2 WHERE id = $1`, [entry.referredBy, places]);
    }
    return counts;
  }

  /**
   * Whether a referral counts: not when the entry's mailbox (canonicalEmail) is its referrer's own, nor
   * when that mailbox's referral has counted before in this product and mode, through any link, as any
   * variant, for an entry since deleted or not. Only the mailbox's SHA-256 is kept.
   */
  private async referralCounts(manager: EntityManager, entry: EntryRecord, referredBy: string): Promise<boolean> {
    const referrer = await manager.getRepository(EntryRecord).findOneBy({ id: referredBy });
    const mailbox = canonicalEmail(entry.email);
    if (!referrer || canonicalEmail(referrer.email) === mailbox) return false;
    const credited: unknown[] = await manager.query(
      `INSERT INTO referral_credits (product_id, mode, email_hash) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING 1`,
      [entry.productId, entry.mode, hashToken(mailbox)],
    );
    return credited.length > 0;
  }

  /** Moves a waiting entry up by `places`, on top of earlier moves and its referrals; no event, no mail. */
  async moveUp(scope: ProductScope, id: string, places: number): Promise<Entry> {
    const [rows]: [{ id: string }[], number] = await this.db.query(
      `UPDATE entries SET moved_up = moved_up + $4, line_key = line_key - $4
       WHERE id = $1 AND product_id = $2 AND mode = $3 AND state = 'confirmed' RETURNING id`,
      [id, scope.productId, scope.mode, places],
    );
    const record = await this.db.getRepository(EntryRecord).findOneBy({ id, productId: scope.productId, mode: scope.mode });
    if (!record) throw notFound();
    if (rows.length === 0) {
      if (record.state === 'pending') throw new ApiError('not_confirmed', 'The entry has not confirmed its address.');
      throw new ApiError('already_invited', 'The entry was already invited; it is no longer in line.');
    }
    return toEntry(record);
  }

  /**
   * A new number of referral places for a product: every waiting entry of both modes gets its new key,
   * in the caller's transaction. Both line counters are taken first, so that this and any confirmation
   * (which reads the places while it holds its counter) happen one after the other.
   */
  async rekey(manager: EntityManager, productId: string, referralPlaces: number): Promise<void> {
    await manager.query(
      `INSERT INTO line_counters (product_id, mode, last_seq) VALUES ($1, 'live', 0), ($1, 'test', 0)
       ON CONFLICT (product_id, mode) DO UPDATE SET last_seq = line_counters.last_seq`,
      [productId],
    );
    await manager.query(
      `UPDATE entries SET line_key = ${LINE_KEY_SQL('$2')}
       WHERE product_id = $1 AND state = 'confirmed' AND line_key <> ${LINE_KEY_SQL('$2')}`,
      [productId, referralPlaces],
    );
  }

  /** The front of the line: the first `limit` waiting entries in line order. */
  async front(scope: ProductScope, limit: number): Promise<EntryRecord[]> {
    return this.db
      .getRepository(EntryRecord)
      .createQueryBuilder('e')
      .where(`e.product_id = :productId AND e.mode = :mode AND e.state = 'confirmed'`, scope)
      .orderBy(IN_LINE_ORDER)
      .limit(limit)
      .getMany();
  }

  /**
   * 1 for the front of the line: the waiting entries ahead of this waiting one in line order, plus one.
   * Those of the stretches of the line before its own are kept in line_buckets; only those of its own
   * stretch (at most LINE_BUCKET_KEYS line keys) are counted, in the same snapshot, so the place is exact.
   */
  async placeInLine(entry: EntryRecord): Promise<number> {
    const bucket = lineBucket(entry.lineKey!);
    const [{ ahead }]: { ahead: string }[] = await this.db.query(
      `SELECT (SELECT COALESCE(sum(waiting), 0) FROM line_buckets WHERE product_id = $1 AND mode = $2 AND bucket < $6)
            + (SELECT count(*) FROM entries
               WHERE product_id = $1 AND mode = $2 AND state = 'confirmed' AND line_key >= $7 AND (${IN_LINE_ORDER}) < ($3, $4, $5)) AS ahead`,
      [
        entry.productId,
        entry.mode,
        ...lineOrder({ lineKey: entry.lineKey!, confirmationSeq: entry.confirmationSeq! }),
        bucket,
        bucket * LINE_BUCKET_KEYS,
      ],
    );
    return Number(ahead) + 1;
  }

  /** A waiting entry's place, the line's length and the estimated wait; 409 for an entry not in line. */
  async standing(scope: ProductScope, id: string): Promise<Standing> {
    const entry = await this.db.getRepository(EntryRecord).findOneBy({ id, productId: scope.productId, mode: scope.mode });
    if (!entry) throw notFound();
    if (entry.state === 'pending') throw new ApiError('not_confirmed', 'The entry has not confirmed its address; it is not in line yet.');
    if (entry.state !== 'confirmed') throw new ApiError('already_invited', 'The entry was already invited; it is no longer in line.');
    return this.standingOf(entry);
  }

  /** Where a waiting entry (state confirmed) stands. */
  async standingOf(entry: EntryRecord): Promise<Standing> {
    const place = await this.placeInLine(entry);
    const [{ length, invited }]: { length: number; invited: number }[] = await this.db.query(
      `SELECT (SELECT COALESCE(sum(confirmed), 0)::int FROM entry_counts WHERE product_id = $1 AND mode = $2) AS length,
              (SELECT COALESCE(sum(count), 0)::int FROM daily_event_counts
               WHERE product_id = $1 AND mode = $2 AND type = 'entry.invited' AND day > (now() AT TIME ZONE 'UTC')::date - $3::int) AS invited`,
      [entry.productId, entry.mode, WAIT_WINDOW_DAYS],
    );
    return { place, lineLength: length, estimatedWaitDays: estimatedWaitDays(place, invited) };
  }

  /**
   * Holds the first `count` waiting entries for an invitation request until `heldUntil`, and returns
   * their ids in line order. An index scan of entries_line (no sort of the line), so it costs the same
   * for a line of a thousand or a million; SKIP LOCKED keeps concurrent calls off each other's entries,
   * so no entry is ever taken twice.
   */
  async takeFront(scope: ProductScope, count: number, hold: { requestId: string; heldUntil: Date; now: Date }): Promise<string[]> {
    const rows: { id: string }[] = await this.db.query(TAKE_FRONT_OF_LINE, [
      scope.productId,
      scope.mode,
      count,
      hold.requestId,
      hold.heldUntil,
      hold.now,
    ]);
    return rows.map((row) => row.id);
  }
}

/** The statement behind takeFront; exported so that a test can pin its plan to the entries_line index. */
export const TAKE_FRONT_OF_LINE = `
  WITH taken AS (
    UPDATE entries SET invite_request = $4, invite_held_until = $5
    WHERE id IN (
      SELECT id FROM entries
      WHERE product_id = $1 AND mode = $2 AND state = 'confirmed'
        AND (invite_held_until IS NULL OR invite_held_until < $6)
      ORDER BY ${IN_LINE_ORDER}
      LIMIT $3 FOR UPDATE SKIP LOCKED)
    RETURNING id, line_key, confirmation_seq)
  SELECT id FROM taken ORDER BY ${IN_LINE_ORDER}`;
