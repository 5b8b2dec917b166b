import { canonicalEmail, hashToken } from '@app/shared';
import type { EntityManager } from 'typeorm';
import type { ProductScope } from '../common/scope';

/**
 * How the suppression list names an address: the SHA-256 of its mailbox (canonicalEmail), as
 * referral_credits does, so that no address outlives its entry and every variant of it (a +tag, dots
 * at Gmail) stays out. Not keyed with ENCRYPTION_KEY: a key rotation would forget the list.
 */
export function suppressionHash(email: string): Buffer {
  return hashToken(canonicalEmail(email));
}

/**
 * Puts deleted or unsubscribed entries' mailboxes on their product and mode's suppression list, in the
 * deletion's transaction, so that no import brings them back. Sign-ups do not read the list.
 */
export async function suppress(manager: EntityManager, scope: ProductScope, emails: string[], now: Date): Promise<void> {
  await manager.query(
    `INSERT INTO suppressed_addresses (product_id, mode, email_hash, suppressed_at)
     SELECT $1, $2, hash, $4 FROM unnest($3::bytea[]) AS hash ON CONFLICT DO NOTHING`,
    [scope.productId, scope.mode, emails.map(suppressionHash), now],
  );
}
