import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Clock, Entry, EntryRecord, EntryState, recordEvent, toEntry } from '@app/shared';
import { DataSource } from 'typeorm';
import type { ProductScope } from '../common/scope';
import { ApiError } from '../common/api-error';
import { preparedQuery } from '../common/prepared';
import { ListCursors } from './cursor';
import type { EntryPage } from './entries.dto';
import { eraseTraces } from './erasure';
import { suppress } from './suppressions';

export interface ListQuery {
  state?: EntryState;
  email?: string;
  /** Part of an address, lowercase (the dashboard's search box); never from the API. */
  emailContains?: string;
  limit: number;
  cursor?: string;
}

@Injectable()
export class EntriesService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly cursors: ListCursors,
    private readonly clock: Clock,
  ) {}

  /**
   * Newest first, by keyset on (createdAt, id); the cursor only works for the same key scope and filters.
   * A hot read: one prepared statement, without the ORM.
   */
  async list(scope: ProductScope, query: ListQuery): Promise<EntryPage> {
    const contains = query.emailContains === undefined ? [] : [`contains:${query.emailContains}`];
    const context = [scope.productId, scope.mode, query.state ?? '', query.email ?? '', ...contains].join('|');
    const after = this.cursors.start(query.cursor, context);
    const values: unknown[] = [];
    const parameter = (value: unknown) => `$${values.push(value)}`;
    const where = [`product_id = ${parameter(scope.productId)}`, `mode = ${parameter(scope.mode)}`];
    if (query.state) where.push(`state = ${parameter(query.state)}`);
    if (query.email) where.push(`email = ${parameter(query.email)}`);
    if (query.emailContains) where.push(`email LIKE ${parameter(`%${query.emailContains.replace(/[\\%_]/g, '\\$&')}%`)} ESCAPE '\\'`);
    if (after) where.push(`(created_at, id) < (${parameter(after.createdAt)}, ${parameter(after.id)})`);
    const limit = parameter(query.limit + 1);
    const rows = await preparedQuery<EntryRow>(
      this.db,
      `SELECT ${ENTRY_COLUMNS} FROM entries WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT ${limit}`,
      values,
    );
    return this.cursors.page(rows, query.limit, context, (row) => row, toEntry);
  }

  async get(scope: ProductScope, id: string): Promise<Entry> {
    const record = await this.db.getRepository(EntryRecord).findOneBy({ id, productId: scope.productId, mode: scope.mode });
    if (!record) throw notFound();
    return toEntry(record);
  }

  /** The entry's record, for the dashboard's entry page; 404 outside the scope. */
  async record(scope: ProductScope, id: string): Promise<EntryRecord> {
    const record = await this.db.getRepository(EntryRecord).findOneBy({ id, productId: scope.productId, mode: scope.mode });
    if (!record) throw notFound();
    return record;
  }

  /**
   * Removes the entry, its codes and every trace of it elsewhere (eraseTraces) whatever its state, and
   * emits entry.deleted with the entry as it was; its address goes on the suppression list, so that no
   * import or referral brings it back.
   */
  async delete(scope: ProductScope, id: string): Promise<void> {
    await this.db.transaction(async (manager) => {
      const record = await manager
        .getRepository(EntryRecord)
        .findOne({ where: { id, productId: scope.productId, mode: scope.mode }, lock: { mode: 'pessimistic_write' } });
      if (!record) throw notFound();
      const now = this.clock.now();
      await eraseTraces(manager, record);
      await manager.delete(EntryRecord, { id });
      await suppress(manager, scope, [record.email], now);
      await recordEvent(manager, 'entry.deleted', scope, toEntry(record), now);
    });
  }
}

/** The columns of an Entry, named as toEntry reads them. */
const ENTRY_COLUMNS = `id, email, state, created_at AS "createdAt", confirmed_at AS "confirmedAt", invited_at AS "invitedAt",
  redeemed_at AS "redeemedAt", referral_code AS "referralCode", referrals`;
type EntryRow = Parameters<typeof toEntry>[0];

export const notFound = () => new ApiError('not_found', 'No entry with this id.', { param: 'id' });
