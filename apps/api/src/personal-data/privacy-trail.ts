import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import type { ProductScope } from '../common/scope';

/** What a person did about their own data: asked for the my-data mail, downloaded their data, deleted their entry. */
export type PrivacyRequestKind = 'request' | 'download' | 'deletion';

export interface PrivacyRequest {
  kind: PrivacyRequestKind;
  entryId: string;
  at: Date;
}

/**
 * The trail of a person's own privacy requests, for the product's records (docs/privacy.md): written in
 * the transaction of what it records, by the entry's id alone (never the address, the link or its
 * token), and kept as long as the product. The team's own deletions, the API's, an unsubscribe and a
 * complaint are not the person's request under the GDPR's articles 15 and 17, and are not in it.
 */
export async function recordPrivacyRequest(manager: EntityManager, scope: ProductScope, kind: PrivacyRequestKind, entryId: string, at: Date): Promise<void> {
  await manager.query(`INSERT INTO privacy_requests (product_id, mode, kind, entry_id, at) VALUES ($1, $2, $3, $4, $5)`, [scope.productId, scope.mode, kind, entryId, at]);
}

/** The trail as the dashboard reads it. */
@Injectable()
export class PrivacyTrail {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** The newest first; `before` (an id) pages on. */
  async list({ productId, mode }: ProductScope, limit: number, before?: string): Promise<(PrivacyRequest & { id: string })[]> {
    const rows: { id: string; kind: PrivacyRequestKind; entry_id: string; at: Date }[] = await this.db.query(
      `SELECT id::text, kind, entry_id, at FROM privacy_requests WHERE product_id = $1 AND mode = $2 AND ($3::bigint IS NULL OR id < $3)
       ORDER BY id DESC LIMIT $4`,
      [productId, mode, before ?? null, limit],
    );
    return rows.map((row) => ({ id: row.id, kind: row.kind, entryId: row.entry_id, at: row.at }));
  }

  /** When the person deleted the entry, if they did. */
  async deletedAt({ productId, mode }: ProductScope, entryId: string): Promise<Date | null> {
    const [row] = await this.db.query<{ at: Date }[]>(
      `SELECT at FROM privacy_requests WHERE entry_id = $1 AND kind = 'deletion' AND product_id = $2 AND mode = $3 LIMIT 1`,
      [entryId, productId, mode],
    );
    return row?.at ?? null;
  }
}

/** The whole trail as RFC 4180 CSV, a thousand rows at a time (no cell can start a formula: kinds, ids and ISO times). */
export async function* privacyTrailCsv(trail: PrivacyTrail, scope: ProductScope): AsyncGenerator<string> {
  yield 'at,kind,entryId\r\n';
  for (let page = await trail.list(scope, 1000); page.length > 0; page = await trail.list(scope, 1000, page.at(-1)!.id)) {
    yield page.map((row) => `${row.at.toISOString()},${row.kind},${row.entryId}\r\n`).join('');
  }
}
