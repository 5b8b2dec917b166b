import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Clock, committedQuery, Entry, EntryRecord, preparedQuery, QueueName, estimatedWaitDays, IN_LINE_ORDER, LINE_BUCKET_KEYS, LINE_KEY_SQL, lineBucket, lineOrder, Milestone, STORED_ENTRY_COLUMNS, StoredEntry, toEntry, WAIT_WINDOW_DAYS } from '@app/shared';
import { DataSource, EntityManager } from 'typeorm';
import { ApiError } from '../common/api-error';
import type { ProductScope } from '../common/scope';
import { notFound } from '../entries/entries.service';
import { Joining, JOIN_LINE, PLACE_CAUSE } from './join-line';
import type { Standing } from './line.dto';

/** A referrer after a change of its credit: its credited referrals, and its product's milestones. */
export interface Credited extends ProductScope {
  referrals: number;
  milestones: Milestone[];
}

/**
 * The line: confirmed entries not invited yet, in line order (libs/shared/src/domain/line.ts). Every
 * query that puts an entry in line, moves it, counts the places ahead of it or takes the front lives
 * here, each ordered by IN_LINE_ORDER, which is the entries_line index's order.
 */
@Injectable()
export class LineService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly clock: Clock,
  ) {}

  /**
   * A confirming entry joins the line at the next confirmation number of its product and mode, at the
   * back of the line, with everything that needs the number in one statement, the caller's last before
   * its commit: the entry's state and key, its history's `joined` place, its referral's decided credit
   * and the referrer's (under the product's referral places), the entry.confirmed event's rows. The
   * counter row is held from this statement until the commit (sent with it, `commit`, unless the
   * caller has more to write): numbers commit in their order, and no new number of referral places
   * (rekey) comes between the places read and the credit. The referrer after a credit, or null.
   */
  async join(manager: EntityManager, joining: Joining): Promise<(Credited & { id: string }) | null> {
    const { entry, now, referral, event } = joining;
    const values = [
      entry.id, entry.productId, entry.mode, now, joining.referralCode, joining.keepsReferrer,
      referral?.id ?? null, referral?.state ?? null, referral?.reasons ?? [], referral?.network ?? null,
      referral?.creditAt ?? null, referral?.creditAfter ?? null, referral?.state === 'credited', referral ? PLACE_CAUSE[referral.state] : null,
      event.id, event.type, JSON.stringify(event), QueueName.Webhooks,
    ];
    type Row = { credited: (Credited & { id: string }) | null };
    const [row] = joining.commit ? await committedQuery<Row>(manager.queryRunner!, JOIN_LINE, values) : await preparedQuery<Row>(manager.queryRunner!, JOIN_LINE, values);
    return row.credited;
  }

  /**
   * The product's referral places for a change of credit outside a confirmation (a team's decision, a
   * waiting period's end): the line's counter row is held (shared) until the commit, so that neither a
   * new number of places (rekey) nor a confirmation comes between. Null when the line never had an entry.
   */
  async holdReferralPlaces(manager: EntityManager, scope: ProductScope): Promise<number | null> {
    const rows: { places: number }[] = await manager.query(
      `SELECT p.referral_places AS places FROM line_counters c JOIN products p ON p.id = c.product_id
       WHERE c.product_id = $1 AND c.mode = $2 FOR SHARE OF c`,
      [scope.productId, scope.mode],
    );
    return rows[0]?.places ?? null;
  }

  /**
   * Counts `credits` more (or fewer) referrals for a referrer and moves its line key by the product's
   * referral places each: the same indexed key, no rebuild. Call it with the places read under the
   * line's counter (join, holdReferralPlaces).
   */
  async credit(manager: EntityManager, referrerId: string, credits: number, referralPlaces: number): Promise<Credited> {
    const [[row]]: [Credited[], number] = await manager.query(
      `UPDATE entries e SET referrals = e.referrals + $2, line_key = e.line_key - $2 * $3 FROM products p
       WHERE e.id = $1 AND p.id = e.product_id RETURNING e.referrals, e.product_id AS "productId", e.mode, p.milestones`,
      [referrerId, credits, referralPlaces],
    );
    return row;
  }

  /** Moves a waiting entry up by `places`, on top of earlier moves and its referrals, and notes it in its history; no event, no mail. */
  async moveUp(scope: ProductScope, id: string, places: number): Promise<Entry> {
    const rows: { id: string }[] = await this.db.query(MOVE_UP, [id, scope.productId, scope.mode, places, this.clock.now(), 'moved_up']);
    const record = await this.db.getRepository(EntryRecord).findOneBy({ id, productId: scope.productId, mode: scope.mode });
    if (!record) throw notFound();
    if (rows.length === 0) {
      if (record.state === 'pending') throw new ApiError('not_confirmed', 'The entry has not confirmed its address.');
      throw new ApiError('already_invited', 'The entry was already invited; it is no longer in line.');
    }
    return toEntry(record);
  }

  /** A milestone's places for a waiting entry, in the caller's transaction, noted in its history as `milestone`; none for an entry no longer waiting. */
  async milestoneMoveUp(manager: EntityManager, scope: ProductScope, id: string, places: number, now: Date): Promise<void> {
    await manager.query(MOVE_UP, [id, scope.productId, scope.mode, places, now, 'milestone']);
  }

  /**
   * A new number of referral places for a product: every waiting entry of both modes gets its new key,
   * and each one that moves has it in its history, in the caller's transaction. Both line counters are
   * taken first, so that this and any confirmation (which reads the places while it holds its counter)
   * happen one after the other. The places gained come from the referrals, not the old key, so that a
   * move-up at the same moment cannot be counted as this change.
   */
  async rekey(manager: EntityManager, productId: string, places: { from: number; to: number }): Promise<void> {
    if (places.from === places.to) return;
    await manager.query(
      `INSERT INTO line_counters (product_id, mode, last_seq) VALUES ($1, 'live', 0), ($1, 'test', 0)
       ON CONFLICT (product_id, mode) DO UPDATE SET last_seq = line_counters.last_seq`,
      [productId],
    );
    await manager.query(
      `WITH moved AS (
         UPDATE entries SET line_key = ${LINE_KEY_SQL('$2')}
         WHERE product_id = $1 AND state = 'confirmed' AND line_key <> ${LINE_KEY_SQL('$2')}
         RETURNING id, referrals
       )
       INSERT INTO place_history (entry_id, at, cause, places)
       SELECT id, $4, 'referral_places_changed', ($2::int - $3::int) * referrals FROM moved`,
      [productId, places.to, places.from, this.clock.now()],
    );
  }

  /**
   * Invited entries of one product and mode whose claim window ended go back into the line, in the
   * caller's transaction (which holds them): at their old place, their confirmation number with what
   * they gained, under the product's referral places of now; or, `atTheEnd`, with new confirmation
   * numbers at the back, in their old order, as new confirmations get them (what they gained still
   * counts). Each has it in its history (invitation_expired, places: the key it gained, less lost).
   * The line's counter is held until the commit, as a confirmation holds it, so that no new number
   * of referral places or confirmation comes between.
   */
  async rejoin(manager: EntityManager, scope: ProductScope, ids: string[], atTheEnd: boolean, now: Date): Promise<Entry[]> {
    const [counter]: { last_seq: string; places: number }[] = await manager.query(
      `INSERT INTO line_counters AS c (product_id, mode, last_seq) VALUES ($1, $2, $3)
       ON CONFLICT (product_id, mode) DO UPDATE SET last_seq = c.last_seq + $3
       RETURNING c.last_seq, (SELECT referral_places FROM products WHERE id = $1) AS places`,
      [scope.productId, scope.mode, atTheEnd ? ids.length : 0],
    );
    const firstSeq = Number(counter.last_seq) - ids.length + 1;
    const back: (StoredEntry & { n: string })[] = await manager.query(
      `WITH ordered AS (
         SELECT id, line_key AS old_key, row_number() OVER (ORDER BY ${IN_LINE_ORDER}) - 1 AS n FROM entries WHERE id = ANY($1)
       ), back AS (
         UPDATE entries e SET state = 'confirmed',
           confirmation_seq = CASE WHEN $3 THEN $4 + o.n ELSE e.confirmation_seq END,
           line_key = CASE WHEN $3 THEN $4 + o.n ELSE e.confirmation_seq END - $2 * e.referrals - e.moved_up
         FROM ordered o WHERE e.id = o.id AND e.state = 'invited'
         RETURNING e.id, o.old_key - e.line_key AS places, o.n, ${STORED_ENTRY_COLUMNS}
       ), history AS (
         INSERT INTO place_history (entry_id, at, cause, places) SELECT id, $5, 'invitation_expired', places FROM back
       )
       SELECT * FROM back ORDER BY n`,
      [ids, counter.places, atTheEnd, firstSeq, now],
    );
    return back.map(toEntry);
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
   * so no entry is ever taken twice. An undeliverable entry (a bounce) is passed over and stays in line.
   */
  async takeFront(scope: ProductScope, count: number, hold: { requestId: string; heldUntil: Date; now: Date }, manager: EntityManager = this.db.manager): Promise<string[]> {
    const rows: { id: string }[] = await manager.query(TAKE_FRONT_OF_LINE, [
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

/** A waiting entry moved up by $4 places, on top of earlier moves, and its history's row with the cause $6. */
const MOVE_UP = `
  WITH moved AS (
    UPDATE entries SET moved_up = moved_up + $4, line_key = line_key - $4
    WHERE id = $1 AND product_id = $2 AND mode = $3 AND state = 'confirmed' RETURNING id
  )
  INSERT INTO place_history (entry_id, at, cause, places) SELECT id, $5, $6, $4 FROM moved RETURNING entry_id AS id`;

/** The statement behind takeFront; exported so that a test can pin its plan to the entries_line index. */
export const TAKE_FRONT_OF_LINE = `
  WITH taken AS (
    UPDATE entries SET invite_request = $4, invite_held_until = $5
    WHERE id IN (
      SELECT id FROM entries
      WHERE product_id = $1 AND mode = $2 AND state = 'confirmed'
        AND (invite_held_until IS NULL OR invite_held_until < $6) AND undeliverable_at IS NULL
      ORDER BY ${IN_LINE_ORDER}
      LIMIT $3 FOR UPDATE SKIP LOCKED)
    RETURNING id, line_key, confirmation_seq)
  SELECT id FROM taken ORDER BY ${IN_LINE_ORDER}`;
