import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { APP_CONFIG, AppConfig, Clock, Entry, EntryRecord, EntryState, IN_LINE_ORDER, lineOrder, recordEvent, toEntry } from '@app/shared';
import { DataSource, IsNull, Not } from 'typeorm';
import type { KeyScope } from '../auth/keys.service';
import { ApiError } from '../common/api-error';
import { CursorCodec } from './cursor';

export interface ListQuery {
  state?: EntryState;
  email?: string;
  /** Part of an address, lowercase (the dashboard's search box); never from the API. */
  emailContains?: string;
  limit: number;
  cursor?: string;
}

export interface EntryPage {
  data: Entry[];
  nextCursor: string | null;
}

@Injectable()
export class EntriesService {
  private readonly cursors: CursorCodec;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly clock: Clock,
  ) {
    this.cursors = new CursorCodec(config.ENCRYPTION_KEY);
  }

  /** Newest first, by keyset on (createdAt, id); the cursor only works for the same key scope and filters. */
  async list(scope: KeyScope, query: ListQuery): Promise<EntryPage> {
    const contains = query.emailContains === undefined ? [] : [`contains:${query.emailContains}`];
    const context = [scope.productId, scope.mode, query.state ?? '', query.email ?? '', ...contains].join('|');
    const after = query.cursor === undefined ? null : this.cursors.decode(query.cursor, context);
    if (query.cursor !== undefined && !after) {
      throw new ApiError('invalid_cursor', 'The cursor was not issued for this listing; start again without it.', {
        param: 'cursor',
      });
    }
    const builder = this.db
      .getRepository(EntryRecord)
      .createQueryBuilder('e')
      .where('e.product_id = :productId AND e.mode = :mode', scope)
      .orderBy('e.created_at', 'DESC')
      .addOrderBy('e.id', 'DESC')
      .limit(query.limit + 1);
    if (query.state) builder.andWhere('e.state = :state', { state: query.state });
    if (query.email) builder.andWhere('e.email = :email', { email: query.email });
    if (query.emailContains) {
      builder.andWhere("e.email LIKE :pattern ESCAPE '\\'", { pattern: `%${query.emailContains.replace(/[\\%_]/g, '\\$&')}%` });
    }
    if (after) builder.andWhere('(e.created_at, e.id) < (:createdAt, :id)', after);
    const rows = await builder.getMany();
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    return {
      data: page.map(toEntry),
      nextCursor: rows.length > query.limit && last ? this.cursors.encode(last, context) : null,
    };
  }

  async get(scope: KeyScope, id: string): Promise<Entry> {
    const record = await this.db.getRepository(EntryRecord).findOneBy({ id, productId: scope.productId, mode: scope.mode });
    if (!record) throw notFound();
    return toEntry(record);
  }

  /** The entry's record, for the dashboard's entry page; 404 outside the scope. */
  async record(scope: KeyScope, id: string): Promise<EntryRecord> {
    const record = await this.db.getRepository(EntryRecord).findOneBy({ id, productId: scope.productId, mode: scope.mode });
    if (!record) throw notFound();
    return record;
  }

  /** The entries that signed up through this one's referral link and confirmed. */
  async referred(record: EntryRecord): Promise<Entry[]> {
    const rows = await this.db.getRepository(EntryRecord).find({
      where: { referredBy: record.id, confirmedAt: Not(IsNull()) },
      order: { confirmedAt: 'ASC' },
      take: 100,
    });
    return rows.map(toEntry);
  }

  /** The front of the line: the first `limit` waiting entries in line order. */
  async front(scope: KeyScope, limit: number): Promise<EntryRecord[]> {
    return this.db
      .getRepository(EntryRecord)
      .createQueryBuilder('e')
      .where(`e.product_id = :productId AND e.mode = :mode AND e.state = 'confirmed'`, scope)
      .orderBy(IN_LINE_ORDER)
      .limit(limit)
      .getMany();
  }

  /** 1 for the front of the line: the waiting entries ahead of this waiting one in line order, plus one. */
  async placeInLine(entry: EntryRecord): Promise<number> {
    const [{ ahead }]: { ahead: string }[] = await this.db.query(
      `SELECT count(*) AS ahead FROM entries
       WHERE product_id = $1 AND mode = $2 AND state = 'confirmed' AND (${IN_LINE_ORDER}) < ($3, $4, $5)`,
      [entry.productId, entry.mode, ...lineOrder({ lineKey: entry.lineKey!, confirmationSeq: entry.confirmationSeq! })],
    );
    return Number(ahead) + 1;
  }

  /** Moves a waiting entry up by `places`, on top of earlier moves and its referrals; no event, no mail. */
  async moveUp(scope: KeyScope, id: string, places: number): Promise<Entry> {
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

  /** Removes the entry and its codes whatever its state, and emits entry.deleted with the entry as it was. */
  async delete(scope: KeyScope, id: string): Promise<void> {
    await this.db.transaction(async (manager) => {
      const record = await manager
        .getRepository(EntryRecord)
        .findOne({ where: { id, productId: scope.productId, mode: scope.mode }, lock: { mode: 'pessimistic_write' } });
      if (!record) throw notFound();
      await manager.delete(EntryRecord, { id });
      await recordEvent(manager, 'entry.deleted', scope, toEntry(record), this.clock.now());
    });
  }
}

export const notFound = () => new ApiError('not_found', 'No entry with this id.', { param: 'id' });
