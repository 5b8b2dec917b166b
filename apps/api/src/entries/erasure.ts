import { EntryRecord, QueueName } from '@app/shared';
import type { EntityManager } from 'typeorm';
import { suppressionHash } from './suppressions';

/** The outbox queues whose rows name an entry (data.entryId): its confirmation, reminder and my-data mails. */
const ENTRY_MAIL_QUEUES = [QueueName.Mail, QueueName.Reminders, QueueName.PersonalData];

/**
 * Everything about a deleted entry outside its own row and the rows that go with it (tokens, codes,
 * referrals either way, place history, milestones: ON DELETE CASCADE), in the deletion's transaction,
 * so that only the suppression list's hash stays (docs/privacy.md) once its events are delivered (an
 * event's body, which holds the address, goes with its last delivery, as every event's does: the spec
 * has every event reach its endpoints, entry.deleted included):
 * - its mails still queued, which would go out to an address that asked to be forgotten;
 * - stored idempotent answers that name it (an invite's entry, a verify's address);
 * - its mailbox's referral credit: the suppression list now keeps a referral sign-up of it out;
 * - its id in release runs' failed entries.
 */
export async function eraseTraces(manager: EntityManager, entry: Pick<EntryRecord, 'id' | 'email' | 'productId' | 'mode'>): Promise<void> {
  const scope = [entry.productId, entry.mode];
  await manager.query(`DELETE FROM outbox WHERE queue = ANY($1) AND data->>'entryId' = $2`, [ENTRY_MAIL_QUEUES, entry.id]);
  await manager.query(
    `DELETE FROM idempotency_keys WHERE product_id = $1 AND mode = $2 AND body IS NOT NULL AND (strpos(body, $3) > 0 OR strpos(lower(body), $4) > 0)`,
    [...scope, entry.id, entry.email],
  );
  await manager.query(`DELETE FROM referral_credits WHERE product_id = $1 AND mode = $2 AND email_hash = $3`, [...scope, suppressionHash(entry.email)]);
  await manager.query(
    `UPDATE release_runs SET failed_entry_ids = array_remove(failed_entry_ids, $1)
     WHERE $1 = ANY (failed_entry_ids) AND release_id IN (SELECT id FROM releases WHERE product_id = $2)`,
    [entry.id, entry.productId],
  );
}
