import type { EntityManager } from 'typeorm';
import { EntryRecord } from '../database/entities';
import { toEntry } from '../domain/entry';
import type { Mode } from '../domain/modes';
import { recordEvent } from '../events/events';

interface CodeRow {
  entry_id: string;
  request_id: string | null;
  recorded: boolean;
  state: string;
  invite_request: string | null;
  product_id: string;
  mode: Mode;
}

/**
 * Records that the invitation mail carrying the code `hash` was handed over to SMTP: the entry
 * becomes invited (entry.invited the first time), and this code replaces every older one. The
 * code's row was written before the handover, so this runs in the mailer right after it, and again
 * when such a code is first verified or redeemed: a mail that left while its mailer died before
 * recording it still carries a code that works. A newer invitation still wins: its recording removes
 * this code. Returns whether the code now works.
 *
 * `heldBy`: only while that request still holds the entry (the mailer's own recording; once the API
 * has given up and answered mail_failed the entry stays as it is until the code, if it left, is used).
 * `scope`: only a code of that product and mode.
 */
export async function recordHandover(
  manager: EntityManager,
  hash: Buffer,
  now: Date,
  options: { heldBy?: string; scope?: { productId: string; mode: Mode } } = {},
): Promise<boolean> {
  const [code]: CodeRow[] = await manager.query(
    `SELECT c.entry_id, c.request_id, c.recorded, e.state, e.invite_request, e.product_id, e.mode
     FROM invite_codes c JOIN entries e ON e.id = c.entry_id
     WHERE c.hash = $1 AND c.expires_at > $2 FOR UPDATE OF e`,
    [hash, now],
  );
  if (!code || (options.scope && (code.product_id !== options.scope.productId || code.mode !== options.scope.mode))) return false;
  if (code.recorded) return code.state === 'invited';
  if (code.state !== 'confirmed' && code.state !== 'invited') return false;
  if (options.heldBy !== undefined && code.invite_request !== options.heldBy) return false;
  await manager.query(
    `UPDATE entries SET state = 'invited', invited_at = COALESCE(invited_at, $2), invited_by_request = $3 WHERE id = $1`,
    [code.entry_id, now, code.request_id],
  );
  // Older codes stop working; a newer one still on its way (written, not yet recorded) stays.
  await manager.query(
    `DELETE FROM invite_codes WHERE entry_id = $1 AND hash <> $2
       AND (recorded OR created_at < (SELECT created_at FROM invite_codes WHERE hash = $2))`,
    [code.entry_id, hash],
  );
  await manager.query(`UPDATE invite_codes SET recorded = true WHERE hash = $1`, [hash]);
  if (code.state === 'confirmed') {
    const entry = await manager.getRepository(EntryRecord).findOneByOrFail({ id: code.entry_id });
    await recordEvent(manager, 'entry.invited', { productId: code.product_id, mode: code.mode }, toEntry(entry), now);
  }
  return true;
}
