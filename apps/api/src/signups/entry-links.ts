import { EntryRecord, EntryToken, hashToken, TokenPurpose } from '@app/shared';
import type { EntityManager } from 'typeorm';
import { ApiError } from '../common/api-error';

/** The entry behind a mail link's token, and when the token was made (just before its mail's handover); 404 when spent. */
export async function tokenOf(manager: EntityManager, token: string, purpose: TokenPurpose, lock = false): Promise<{ entry: EntryRecord; issuedAt: Date }> {
  const found = await manager.getRepository(EntryToken).findOneBy({ hash: hashToken(token), purpose });
  const entry =
    found &&
    (await manager
      .getRepository(EntryRecord)
      .findOne({ where: { id: found.entryId }, lock: lock ? { mode: 'pessimistic_write' } : undefined }));
  if (!found || !entry) throw new ApiError('not_found', 'This link is no longer valid.');
  return { entry, issuedAt: found.createdAt };
}

export async function entryOfToken(manager: EntityManager, token: string, purpose: TokenPurpose, lock = false): Promise<EntryRecord> {
  return (await tokenOf(manager, token, purpose, lock)).entry;
}
