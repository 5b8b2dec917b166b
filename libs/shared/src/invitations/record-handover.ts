import { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { keyedQuery } from '../database/prepared';
import { STORED_ENTRY_COLUMNS, StoredEntry, toEntry } from '../domain/entry';
import { IN_LINE_ORDER } from '../domain/line';
import type { Mode } from '../domain/modes';
import { recordEvents } from '../events/events';

interface CodeRow {
  hash: Buffer;
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
 * becomes invited (entry.invited the first time). The code's row was written before the handover, so
 * this runs in the mailer right after it, and again when such a code is first verified or redeemed: a
 * mail that left while its mailer died before recording it still carries a code that works.
 *
 * A first invitation replaces no code: the older codes of the entry that were never recorded (their
 * mails may have left just before a mailer died) are recorded with it and work beside it until the
 * entry redeems one of them. A reinvite's code replaces every older one; so does a code recorded by
 * its first use once the entry is invited (an older first invitation's codes were recorded with it, so
 * this one is a newer invitation's). Returns whether the code now works.
 *
 * `scope`: only a code of that product and mode.
 */
export async function recordHandover(manager: EntityManager, hash: Buffer, now: Date, options: { scope?: Scope } = {}): Promise<boolean> {
  const [works] = await recordHandovers(manager, [{ hash }], now, options);
  return works;
}

interface Scope {
  productId: string;
  mode: Mode;
}

/** One handover to record. */
export interface Handover {
  hash: Buffer;
  /**
   * The mailer's own recording: only while that request still holds the entry (once the API has given
   * up and answered mail_failed, the entry stays as it is until the code, if it left, is used).
   */
  heldBy?: string;
  /** The mailer's own recording: whether its request is a reinvite (which replaces older codes). */
  again?: boolean;
}

/** Marks the codes `hashes` handed over: their mails left, and the handovers are recorded later (the mailer at its job's end, or the API). */
export async function markHandedOver(on: DataSource | QueryRunner, hashes: readonly Buffer[]): Promise<void> {
  await keyedQuery(on, `UPDATE invite_codes SET handed_over = true WHERE hash = ANY($1::bytea[])`, [hashes]);
}

/**
 * recordHandover for several codes (one per entry) in one go, as the mailer records the handovers
 * that ended at about the same time; whether each code now works, in the order given. The entries are
 * locked in id order, so two such calls cannot deadlock.
 */
export async function recordHandovers(manager: EntityManager, handovers: Handover[], now: Date, options: { scope?: Scope } = {}): Promise<boolean[]> {
  const found: CodeRow[] = await manager.query(
    `SELECT c.hash, c.entry_id, c.request_id, c.recorded, e.state, e.invite_request, e.product_id, e.mode
     FROM invite_codes c JOIN entries e ON e.id = c.entry_id
     WHERE c.hash = ANY($1) AND c.expires_at > $2 ORDER BY e.id FOR UPDATE OF e`,
    [handovers.map((handover) => handover.hash), now],
  );
  const codes = new Map(found.map((code) => [code.hash.toString('hex'), code]));
  const { scope } = options;
  const works = (code: CodeRow | undefined, { heldBy }: Handover): boolean | 'record' => {
    if (!code || (scope && (code.product_id !== scope.productId || code.mode !== scope.mode))) return false;
    if (code.recorded) return code.state === 'invited';
    if (code.state !== 'confirmed' && code.state !== 'invited') return false;
    if (heldBy !== undefined && code.invite_request !== heldBy) return false;
    return 'record';
  };
  const given = handovers.map((handover) => ({ handover, code: codes.get(handover.hash.toString('hex')) }));
  const recording = given
    .filter(({ handover, code }) => works(code, handover) === 'record')
    .map(({ handover, code }) => ({ ...code!, replaces: code!.state === 'invited' && handover.again !== false }));
  const outcomes = given.map(({ handover, code }) => works(code, handover) !== false);
  if (recording.length > 0) await record(manager, recording, now);
  return outcomes;
}

/**
 * What the mailer marked handed over but never recorded among a request's `entryIds` (it died before
 * the end of their chunk), recorded by the API before it settles them: the server took those mails.
 */
export async function recordMarked(db: DataSource, requestId: string, entryIds: string[], again: boolean, now: Date): Promise<void> {
  const marked: { hash: Buffer }[] = await db.query(`SELECT hash FROM invite_codes WHERE entry_id = ANY($1) AND request_id = $2 AND handed_over AND NOT recorded`, [
    entryIds,
    requestId,
  ]);
  await recordFound(db, marked.map(({ hash }) => ({ hash, heldBy: requestId, again })), now);
}

/**
 * The handovers of a product's line marked but never recorded whose request's hold ran out: the
 * mailer and the API waiting on it both died. Recorded (as the mailer would have: held by that
 * request, once) before the front of the line is taken, so that those entries are invited, not
 * mailed again. One statement on the partial index invite_codes_marked when there is none.
 */
export async function recordAbandonedMarks(db: DataSource, scope: Scope, now: Date): Promise<void> {
  const marked: { hash: Buffer; request_id: string }[] = await db.query(ABANDONED_MARKS, [scope.productId, scope.mode, now]);
  await recordFound(db, marked.map(({ hash, request_id }) => ({ hash, heldBy: request_id, again: false })), now);
}

/** Marks found unrecorded, recorded in one transaction; nothing to open when there are none. */
async function recordFound(db: DataSource, handovers: Handover[], now: Date): Promise<void> {
  if (handovers.length > 0) await db.transaction((manager) => recordHandovers(manager, handovers, now));
}

/** The statement behind recordAbandonedMarks; exported so that a test can pin its plan to invite_codes_marked. */
export const ABANDONED_MARKS = `
  SELECT c.hash, c.request_id FROM invite_codes c JOIN entries e ON e.id = c.entry_id
  WHERE c.handed_over AND NOT c.recorded AND c.expires_at > $3
    AND e.product_id = $1 AND e.mode = $2 AND e.state = 'confirmed' AND e.invite_request = c.request_id AND e.invite_held_until < $3
  ORDER BY ${IN_LINE_ORDER}`;

/**
 * The entries become invited by their codes' requests; a first invitation records the older codes of
 * its entry with it, a newer invitation removes them; entry.invited for the newly invited.
 */
async function record(manager: EntityManager, codes: (CodeRow & { replaces: boolean })[], now: Date): Promise<void> {
  // The entries as they now are, for their events: returned by the update rather than read again.
  const [updated]: [StoredEntry[], number] = await manager.query(
    `UPDATE entries e SET state = 'invited', invited_at = COALESCE(e.invited_at, $2), invited_by_request = c.request_id
     FROM unnest($1::text[], $3::text[]) AS c(entry_id, request_id) WHERE e.id = c.entry_id
     RETURNING e.id, ${STORED_ENTRY_COLUMNS}`,
    [codes.map((code) => code.entry_id), now, codes.map((code) => code.request_id)],
  );
  const replacing = codes.filter((code) => code.replaces).map((code) => code.hash);
  // Older codes stop working; a newer one still on its way (written, not yet recorded) stays.
  if (replacing.length > 0) {
    await manager.query(
      `DELETE FROM invite_codes old USING invite_codes c
       WHERE c.hash = ANY($1) AND old.entry_id = c.entry_id AND old.hash <> c.hash
         AND (old.recorded OR old.created_at < c.created_at)`,
      [replacing],
    );
  }
  const first = codes.filter((code) => !code.replaces).map((code) => code.hash);
  await manager.query(
    `UPDATE invite_codes old SET recorded = true FROM invite_codes c
     WHERE (old.hash = c.hash AND c.hash = ANY($1))
        OR (c.hash = ANY($2) AND old.entry_id = c.entry_id AND NOT old.recorded AND old.created_at <= c.created_at)`,
    [codes.map((code) => code.hash), first],
  );
  const invited = codes.filter((code) => code.state === 'confirmed');
  if (invited.length === 0) return;
  const records = new Map(updated.map((entry) => [entry.id, entry]));
  // In the order given (invite-next's line order); every code of one call is of one product and mode in practice.
  for (const scope of new Set(invited.map((code) => `${code.product_id} ${code.mode}`))) {
    const ofScope = invited.filter((code) => `${code.product_id} ${code.mode}` === scope);
    const entries = ofScope.map((code) => toEntry(records.get(code.entry_id)!));
    await recordEvents(manager, 'entry.invited', { productId: ofScope[0].product_id, mode: ofScope[0].mode }, entries, now);
  }
}
