import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Answers, Attribution, Locale } from '@app/shared';
import { DataSource } from 'typeorm';
import type { ProductScope } from '../common/scope';
import { notFound } from './entries.service';
import type { EntryProfile } from './profile.dto';

export interface EntryDetails {
  answers: Answers;
  attribution: Attribution;
}

/** What is known of the person behind an entry beside its address: its language, and what its sign-up said (entry_details). */
@Injectable()
export class ProfileService {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** The entry's profile; 404 outside the scope, as GET /api/v1/entries/{id}. */
  async profile(scope: ProductScope, id: string): Promise<EntryProfile> {
    const [row]: { id: string; locale: Locale; answers: Answers | null; attribution: Attribution | null }[] = await this.db.query(
      `SELECT e.id, e.locale, d.answers, d.attribution FROM entries e LEFT JOIN entry_details d ON d.entry_id = e.id
       WHERE e.id = $1 AND e.product_id = $2 AND e.mode = $3`,
      [id, scope.productId, scope.mode],
    );
    if (!row) throw notFound();
    return { id: row.id, locale: row.locale, answers: row.answers ?? {}, attribution: row.attribution ?? {} };
  }

  /** The details of these entries (of one scope, already read), by id; entries without any are absent. */
  async detailsOf(ids: string[]): Promise<Map<string, EntryDetails>> {
    if (ids.length === 0) return new Map();
    const rows: ({ entry_id: string } & { answers: Answers | null; attribution: Attribution | null })[] = await this.db.query(
      'SELECT entry_id, answers, attribution FROM entry_details WHERE entry_id = ANY($1)',
      [ids],
    );
    return new Map(rows.map((row) => [row.entry_id, { answers: row.answers ?? {}, attribution: row.attribution ?? {} }]));
  }
}
