import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Clock, Entry, EntryRecord, EntryState, Locale, preparedQuery, recordEvent, toEntry } from '@app/shared';
import { DataSource, EntityManager } from 'typeorm';
import type { ProductScope } from '../common/scope';
import { ApiError } from '../common/api-error';
import { ListCursors, Page } from './cursor';
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
  /** Only sign-ups with these details (the dashboard's filters; never from the API). */
  details?: DetailFilters;
}

/** Filters on entry_details: a UTM source or campaign, an answer to a question (its text, one of its choices, true or false). */
export interface DetailFilters {
  utmSource?: string;
  utmCampaign?: string;
  answer?: { key: string; value: string };
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
    return this.listed(scope, query, ENTRY_COLUMNS, toEntry);
  }

  /** list's pages with each entry's language, for the dashboard's export (the API's Entry has no such field). */
  async listWithLocale(scope: ProductScope, query: ListQuery): Promise<Page<EntryWithLocale>> {
    return this.listed<EntryRow & { locale: Locale }, EntryWithLocale>(scope, query, `${ENTRY_COLUMNS}, locale`, (row) => ({ ...toEntry(row), locale: row.locale }));
  }

  private async listed<Row extends EntryRow, View>(scope: ProductScope, query: ListQuery, columns: string, view: (row: Row) => View): Promise<Page<View>> {
    const contains = query.emailContains === undefined ? [] : [`contains:${query.emailContains}`];
    const details = query.details ? [`details:${JSON.stringify(query.details)}`] : [];
    const context = [scope.productId, scope.mode, query.state ?? '', query.email ?? '', ...contains, ...details].join('|');
    const after = this.cursors.start(query.cursor, context);
    const values: unknown[] = [];
    const parameter = (value: unknown) => `$${values.push(value)}`;
    const where = [`product_id = ${parameter(scope.productId)}`, `mode = ${parameter(scope.mode)}`];
    if (query.state) where.push(`state = ${parameter(query.state)}`);
    if (query.email) where.push(`email = ${parameter(query.email)}`);
    if (query.emailContains) where.push(`email LIKE ${parameter(`%${query.emailContains.replace(/[\\%_]/g, '\\$&')}%`)} ESCAPE '\\'`);
    if (query.details) where.push(detailsMatch(query.details, parameter));
    if (after) where.push(`(created_at, id) < (${parameter(after.createdAt)}, ${parameter(after.id)})`);
    const limit = parameter(query.limit + 1);
    const rows = await preparedQuery<Row>(
      this.db,
      `SELECT ${columns} FROM entries WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT ${limit}`,
      values,
    );
    return this.cursors.page(rows, query.limit, context, (row) => row, view);
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
   * import or referral brings it back. `alsoRecord` writes in the same transaction (the privacy trail).
   */
  async delete(scope: ProductScope, id: string, alsoRecord?: (manager: EntityManager, now: Date) => Promise<void>): Promise<void> {
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
      await alsoRecord?.(manager, now);
    });
  }
}

/** An EXISTS on the entry's details row; a scan of the scope's entries newest first, fine for a team's dashboard. */
function detailsMatch(filters: DetailFilters, parameter: (value: unknown) => string): string {
  const match = ['d.entry_id = entries.id'];
  if (filters.utmSource !== undefined) match.push(`d.attribution ->> 'utm_source' = ${parameter(filters.utmSource)}`);
  if (filters.utmCampaign !== undefined) match.push(`d.attribution ->> 'utm_campaign' = ${parameter(filters.utmCampaign)}`);
  if (filters.answer) {
    const key = parameter(filters.answer.key);
    const value = parameter(filters.answer.value);
    // Text and choices match whole; a multiple choice holds the value; a checkbox reads as true or false, or as the entry page shows it, yes or no.
    const box = `CASE ${value}::text WHEN 'yes' THEN 'true'::jsonb WHEN 'no' THEN 'false'::jsonb END`;
    match.push(`(d.answers ->> ${key}::text = ${value}::text OR d.answers -> ${key}::text @> jsonb_build_array(${value}::text) OR d.answers -> ${key}::text = ${box})`);
  }
  return `EXISTS (SELECT FROM entry_details d WHERE ${match.join(' AND ')})`;
}

/** The columns of an Entry, named as toEntry reads them. */
const ENTRY_COLUMNS = `id, email, state, created_at AS "createdAt", confirmed_at AS "confirmedAt", invited_at AS "invitedAt",
  redeemed_at AS "redeemedAt", referral_code AS "referralCode", referrals`;
type EntryRow = Parameters<typeof toEntry>[0];
export type EntryWithLocale = Entry & { locale: Locale };

export const notFound = () => new ApiError('not_found', 'No entry with this id.', { param: 'id' });
