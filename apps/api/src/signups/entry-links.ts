import { EntryRecord, EntryToken, hashToken, Mode, preparedQuery, ProtectionLevel, ReferralRules, StoredEntry, TokenPurpose } from '@app/shared';
import type { EntityManager } from 'typeorm';
import { ApiError } from '../common/api-error';
import type { ReferralAtConfirmation } from '../referrals/referrals.service';

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

/** What a confirmation reads before it takes its number: the entry (locked), its product's referral protection, and its referral with its referrer, if any. */
export interface Confirming extends ReferralAtConfirmation {
  entry: StoredEntry & { productId: string; mode: Mode };
  /** When the confirmation link's token was made (just before its mail's handover). */
  issuedAt: Date;
  /** Whether the product has milestones, which a credit may reach. */
  milestones: boolean;
}

/**
 * The entry behind a confirmation link, locked, with what its confirmation decides by, in one round
 * trip; 404 when spent. A referral whose referrer is gone is none.
 */
export async function confirmingEntry(manager: EntityManager, token: string): Promise<Confirming> {
  const [row] = await preparedQuery<StoredEntry & { productId: string; mode: Mode; issuedAt: Date; protection: ProtectionLevel; rules: ReferralRules; referral: Confirming['referral']; milestones: boolean }>(
    manager.queryRunner!,
    `SELECT e.id, e.product_id AS "productId", e.mode, e.email, e.state, e.created_at AS "createdAt", e.confirmed_at AS "confirmedAt",
            e.invited_at AS "invitedAt", e.redeemed_at AS "redeemedAt", e.referral_code AS "referralCode", e.referrals,
            t.created_at AS "issuedAt", p.referral_protection AS protection, p.referral_rules AS rules, p.milestones <> '[]' AS milestones,
            CASE WHEN referrer.id IS NOT NULL THEN jsonb_build_object('id', r.id, 'createdAt', r.created_at, 'referrerId', referrer.id, 'referrerEmail', referrer.email) END AS referral
     FROM entry_tokens t JOIN entries e ON e.id = t.entry_id JOIN products p ON p.id = e.product_id
     LEFT JOIN referrals r ON r.referred_id = e.id LEFT JOIN entries referrer ON referrer.id = r.referrer_id
     WHERE t.hash = $1 AND t.purpose = 'confirm' FOR UPDATE OF e`,
    [hashToken(token)],
  );
  if (!row) throw new ApiError('not_found', 'This link is no longer valid.');
  const { issuedAt, protection, rules, referral, milestones, ...entry } = row;
  return { entry, issuedAt, protection, rules, milestones, referral: referral && { ...referral, createdAt: new Date(referral.createdAt) } };
}
