import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { EntryRecord, PlaceCause, PlaceChange, ReferralReason } from '@app/shared';
import { DataSource, EntityManager, LessThan } from 'typeorm';
import type { ProductScope } from '../common/scope';
import { ListCursors } from '../entries/cursor';
import { notFound } from '../entries/entries.service';
import type { EntryListQuery } from '../entries/entries.dto';
import type { PlaceHistory } from './line.dto';

export interface PlaceChangeInput {
  entryId: string;
  at: Date;
  cause: PlaceCause;
  /** Places gained, less lost (line keys). */
  places?: number;
  /** joined: the place it joined at. */
  place?: number;
  referralId?: string;
  reasons?: ReferralReason[];
}

/** Notes a change of an entry's place or credit in its history, in the caller's transaction. */
export async function recordPlaceChange(manager: EntityManager, change: PlaceChangeInput): Promise<void> {
  await manager.query(
    `INSERT INTO place_history (entry_id, at, cause, places, place, referral_id, reasons) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [change.entryId, change.at, change.cause, change.places ?? 0, change.place ?? null, change.referralId ?? null, change.reasons ?? []],
  );
}

/** An entry's history, newest first, a page at a time. */
@Injectable()
export class PlaceHistoryService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly cursors: ListCursors,
  ) {}

  async list(scope: ProductScope, entryId: string, query: EntryListQuery): Promise<PlaceHistory> {
    const context = `history|${scope.productId}|${scope.mode}|${entryId}`;
    const after = this.cursors.start(query.cursor, context);
    if (!(await this.db.getRepository(EntryRecord).existsBy({ id: entryId, productId: scope.productId, mode: scope.mode }))) throw notFound();
    const rows = await this.db.getRepository(PlaceChange).find({
      where: { entryId, ...(after ? { id: LessThan(Number(after.id)) } : {}) },
      order: { id: 'DESC' },
      take: query.limit + 1,
    });
    return this.cursors.page(
      rows,
      query.limit,
      context,
      (row) => ({ createdAt: row.at, id: String(row.id) }),
      ({ at, cause, places, place, referralId, reasons }) => ({ at: at.toISOString(), cause, places, place, referralId, reasons }),
    );
  }
}
