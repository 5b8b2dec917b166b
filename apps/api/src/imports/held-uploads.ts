import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Clock, cutText, storableText } from '@app/shared';
import { createHash, randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { ApiError } from '../common/api-error';
import type { ProductScope } from '../common/scope';

/** How long the dashboard holds an uploaded file for its column picker, dry run and import (docs/dashboard.md, docs/privacy.md). */
export const UPLOAD_HOLD = 60 * 60 * 1000;

/** Why a held upload could not be used: gone, or never this person's, product's or mode's (which it does not tell apart). */
export const NO_LONGER_HELD =
  'The uploaded file is no longer held: an upload is kept for an hour, for the waitlist, mode and person that sent it, and removed once imported. Upload the file again.';

/** A file as the dashboard holds it, without its bytes. */
export interface HeldFile {
  /** The unguessable id the forms carry. */
  id: string;
  name: string;
  sha256: string;
  /** ISO 8601: it waits in the session, as JSON, between a post and its page. */
  expiresAt: string;
}

/** Who an upload is held for: a product and mode, and the dashboard user who sent it. */
export interface UploadOwner {
  scope: ProductScope;
  userId: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The dashboard's uploaded CSV files, held in PostgreSQL (import_uploads) so that a file is chosen
 * once: its column picker, its dry run and its import read the same bytes. Each is for the product,
 * mode and person who sent it, for UPLOAD_HOLD; the import removes it, the maintenance round the expired.
 */
@Injectable()
export class HeldUploads {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly clock: Clock,
  ) {}

  /** Holds `bytes` for `owner`; the file's name as the browser sent it is kept as text PostgreSQL stores, cut to 200 characters. */
  async hold(owner: UploadOwner, fileName: string, bytes: Buffer): Promise<HeldFile> {
    const now = this.clock.now();
    const held = { id: randomUUID(), name: cutText(storableText(fileName), 200), sha256: createHash('sha256').update(bytes).digest('hex'), expiresAt: new Date(now.getTime() + UPLOAD_HOLD).toISOString() };
    await this.db.query(
      `INSERT INTO import_uploads (id, product_id, mode, user_id, file_name, bytes, sha256, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [held.id, owner.scope.productId, owner.scope.mode, owner.userId, held.name, bytes, held.sha256, now, held.expiresAt],
    );
    return held;
  }

  /** The held file `id` with its bytes, if it is the owner's and not expired; else 400 invalid_request in words. */
  async take(owner: UploadOwner, id: string): Promise<HeldFile & { bytes: Buffer }> {
    const rows: { id: string; file_name: string; sha256: string; expires_at: Date; bytes: Buffer }[] = UUID.test(id)
      ? await this.db.query(
          `SELECT id, file_name, sha256, expires_at, bytes FROM import_uploads
            WHERE id = $1 AND product_id = $2 AND mode = $3 AND user_id = $4 AND expires_at > $5`,
          [id, owner.scope.productId, owner.scope.mode, owner.userId, this.clock.now()],
        )
      : [];
    if (!rows.length) throw new ApiError('invalid_request', NO_LONGER_HELD, { param: 'upload' });
    const [row] = rows;
    return { id: row.id, name: row.file_name, sha256: row.sha256, expiresAt: row.expires_at.toISOString(), bytes: row.bytes };
  }

  /** Once imported, a file is no longer held. */
  async drop(id: string): Promise<void> {
    await this.db.query(`DELETE FROM import_uploads WHERE id = $1`, [id]);
  }
}

/** The maintenance round's sweep: uploads past their hour are removed (they hold addresses). */
export async function forgetExpiredUploads(manager: EntityManager, now: Date): Promise<void> {
  await manager.query(`DELETE FROM import_uploads WHERE expires_at <= $1`, [now]);
}
