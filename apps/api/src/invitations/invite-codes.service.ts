import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Clock, EntryRecord, EntryState, hashToken, Locale, Mode, preparedQuery, recordEvent, recordHandover, toEntry } from '@app/shared';
import { DataSource } from 'typeorm';
import type { ProductScope } from '../common/scope';
import type { CodeCheck, InvitedAnswer } from './invitations.dto';

/** What the hosted invitation page shows of a code; the address only to the holder of a working code. */
export type InvitationStanding = (
  | { state: 'valid'; email: string; productName: string; inviteUrl: string | null; mode: Mode; expiresAt: Date }
  | { state: 'used'; productName: string }
  /** lifeMs: how long the code worked (INVITE_CODE_TTL, or the product's claim window when it was made). */
  | { state: 'expired'; productName: string; lifeMs: number }
) & { locale: Locale } | { state: 'unknown' };

/**
 * What a product's sign-up asks of an invitation: whether an address is invited, whether a code works
 * (verify), using it up (redeem), and what the hosted invitation page shows of it.
 */
@Injectable()
export class InviteCodesService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly clock: Clock,
  ) {}

  /** Checks a code without using it up. */
  async verify(scope: ProductScope, token: string): Promise<CodeCheck> {
    const now = this.clock.now();
    const hash = hashToken(token);
    const [row] = await preparedQuery<{ email: string; recorded: boolean }>(
      this.db,
      `SELECT e.email, c.recorded FROM invite_codes c JOIN entries e ON e.id = c.entry_id
       WHERE c.hash = $1 AND c.expires_at > $2 AND e.product_id = $3 AND e.mode = $4
         AND (e.state = 'invited' OR (NOT c.recorded AND e.state = 'confirmed'))`,
      [hash, now, scope.productId, scope.mode],
    );
    if (!row) return { valid: false };
    if (!row.recorded && !(await this.db.transaction((manager) => recordHandover(manager, hash, now, { scope })))) return { valid: false };
    return { valid: true, email: row.email };
  }

  /**
   * The code as its holder's page shows it, without a write: a code whose handover was never recorded
   * counts as valid here, as verify would honour it, but only verify and redeem record it (GET must not
   * change state: mail scanners open links). Replaced codes are gone, so they read as unknown.
   */
  async standing(token: string): Promise<InvitationStanding> {
    const [row] = await this.db.query<{ email: string; state: EntryState; mode: Mode; locale: Locale; recorded: boolean; expires_at: Date; created_at: Date; name: string; invite_url: string | null }[]>(
      `SELECT e.email, e.state, e.mode, e.locale, c.recorded, c.expires_at, c.created_at, p.name, p.invite_url
       FROM invite_codes c JOIN entries e ON e.id = c.entry_id JOIN products p ON p.id = e.product_id
       WHERE c.hash = $1`,
      [hashToken(token)],
    );
    if (!row) return { state: 'unknown' };
    if (row.state === 'redeemed') return { state: 'used', productName: row.name, locale: row.locale };
    if (row.expires_at <= this.clock.now()) return { state: 'expired', productName: row.name, lifeMs: row.expires_at.getTime() - row.created_at.getTime(), locale: row.locale };
    // verify's condition, less the product and mode that a key would bring.
    if (row.state !== 'invited' && !(row.state === 'confirmed' && !row.recorded)) return { state: 'unknown' };
    return { state: 'valid', email: row.email, productName: row.name, inviteUrl: row.invite_url, mode: row.mode, expiresAt: row.expires_at, locale: row.locale };
  }

  /**
   * Uses a code up: valid is true exactly once per code, under any concurrency; entry.redeemed once per
   * entry. A code whose handover was never recorded is recorded first (entry.invited, then entry.redeemed).
   */
  async redeem(scope: ProductScope, token: string): Promise<CodeCheck> {
    const hash = hashToken(token);
    return this.db.transaction(async (manager) => {
      const now = this.clock.now();
      const redeem = () =>
        manager.query(
          `UPDATE entries e SET state = 'redeemed', redeemed_at = $2
           FROM invite_codes c
           WHERE c.hash = $1 AND c.entry_id = e.id AND c.expires_at > $2 AND c.recorded
             AND e.product_id = $3 AND e.mode = $4 AND e.state = 'invited'
           RETURNING e.id`,
          [hash, now, scope.productId, scope.mode],
        ) as Promise<[{ id: string }[], number]>;
      let [rows] = await redeem();
      if (rows.length === 0 && (await recordHandover(manager, hash, now, { scope }))) [rows] = await redeem();
      if (rows.length === 0) return { valid: false };
      const entry = await manager.getRepository(EntryRecord).findOneByOrFail({ id: rows[0].id });
      await recordEvent(manager, 'entry.redeemed', scope, toEntry(entry), now);
      return { valid: true, email: entry.email };
    });
  }

  /** An address is invited while its entry is invited or redeemed; unknown addresses are not. */
  async isInvited(scope: ProductScope, email: string): Promise<InvitedAnswer> {
    const [record] = await preparedQuery<{ state: EntryState }>(this.db, 'SELECT state FROM entries WHERE product_id = $1 AND mode = $2 AND email = $3', [
      scope.productId,
      scope.mode,
      email,
    ]);
    return { invited: record?.state === 'invited' || record?.state === 'redeemed' };
  }
}
