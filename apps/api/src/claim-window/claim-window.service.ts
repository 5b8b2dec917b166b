import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ClaimExpiry, Clock, IN_LINE_ORDER, Mode, QueueName, recordEvents, STORED_ENTRY_COLUMNS, StoredEntry, toEntry } from '@app/shared';
import { DataSource, EntityManager } from 'typeorm';
import { suppress } from '../entries/suppressions';
import { LineService } from '../line/line.service';

/** Codes whose reminder is queued per statement. */
const REMINDER_BATCH = 1000;
/** Ended claim windows settled per transaction: the entries stay locked until it commits. */
const EXPIRY_BATCH = 500;

export interface SweepResult {
  /** Reminders put in the outbox for the mailer. */
  reminded: number;
  /** Invitations that expired, whatever their outcome. */
  expired: number;
}

interface Ended {
  hash: Buffer;
  entry_id: string;
}

/**
 * The claim window's timers, which are rows (invite_codes.remind_at, claim_ends_at) swept by the
 * maintenance round: reminders due are queued for the mailer, and invitations whose window ended
 * expire with the product's outcome. Batch by batch, each claimed with SKIP LOCKED, so that sweeps
 * running at once (several replicas) share the work and never act on a row twice, and a redeem racing
 * an expiry takes turns with it on the entry's row: whichever comes first wins, the other finds the
 * entry no longer invited (or the code expired).
 */
@Injectable()
export class ClaimWindowSweep {
  private readonly logger = new Logger(ClaimWindowSweep.name);

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly line: LineService,
    private readonly clock: Clock,
  ) {}

  async sweep(now = this.clock.now()): Promise<SweepResult> {
    let reminded = 0;
    let expired = 0;
    for (let batch = REMINDER_BATCH; batch === REMINDER_BATCH; ) {
      const { due, queued } = await this.queueReminders(now);
      reminded += queued;
      batch = due;
    }
    for (let batch = EXPIRY_BATCH; batch === EXPIRY_BATCH; ) {
      const { ended, expired: count } = await this.db.transaction((manager) => this.expireBatch(manager, now));
      expired += count;
      batch = ended;
    }
    if (reminded + expired > 0) this.logger.log(`Claim windows: ${reminded} reminders queued, ${expired} invitations expired`);
    return { reminded, expired };
  }

  /**
   * One statement per batch: the codes whose reminder is due lose their due time, and those still
   * working for an invited entry get an outbox row for the mailer; the others lose their sealed code.
   */
  private async queueReminders(now: Date): Promise<{ due: number; queued: number }> {
    const [{ due, queued }]: { due: number; queued: number }[] = await this.db.query(
      `WITH due AS (
         SELECT c.hash, (e.state = 'invited' AND c.recorded AND c.expires_at > $1 AND c.sealed_code IS NOT NULL) AS remind
         FROM invite_codes c JOIN entries e ON e.id = c.entry_id
         WHERE c.remind_at <= $1 ORDER BY c.remind_at LIMIT $2 FOR UPDATE OF c SKIP LOCKED
       ), taken AS (
         UPDATE invite_codes c SET remind_at = NULL, sealed_code = CASE WHEN due.remind THEN c.sealed_code END
         FROM due WHERE c.hash = due.hash RETURNING c.entry_id, due.remind
       ), queued AS (
         INSERT INTO outbox (queue, name, data, created_at)
         SELECT $3, 'reminder', jsonb_build_object('entryId', entry_id), $1 FROM taken WHERE remind RETURNING 1
       )
       SELECT (SELECT count(*) FROM taken)::int AS due, (SELECT count(*) FROM queued)::int AS queued`,
      [now, REMINDER_BATCH, QueueName.Reminders],
    );
    return { due, queued };
  }

  /**
   * A batch of codes whose window ended, with their entries locked (an entry held by an invitation
   * request is left for a later round). An entry still invited with no working code left has its
   * invitation expire: entry.invitation_expired, then the product's outcome. Every code of the batch
   * is done with: no window, no reminder, no sealed code.
   */
  private async expireBatch(manager: EntityManager, now: Date): Promise<{ ended: number; expired: number }> {
    // The lines of the batch's products first, as a confirmation takes its line before a referrer's row:
    // taken the other way round, a confirmation crediting an expiring referrer would wait for us and we for it.
    const lines: { product_id: string; mode: Mode }[] = await manager.query(
      `SELECT DISTINCT product_id, mode FROM (
         SELECT e.product_id, e.mode FROM invite_codes c JOIN entries e ON e.id = c.entry_id
         WHERE c.claim_ends_at <= $1 ORDER BY c.claim_ends_at LIMIT $2) AS due`,
      [now, EXPIRY_BATCH],
    );
    if (lines.length === 0) return { ended: 0, expired: 0 };
    const [products, modes] = [lines.map((line) => line.product_id), lines.map((line) => line.mode)];
    await manager.query(
      `SELECT 1 FROM line_counters WHERE (product_id, mode) IN (SELECT * FROM unnest($1::text[], $2::text[]))
       ORDER BY product_id, mode FOR UPDATE`,
      [products, modes],
    );
    const ended: Ended[] = await manager.query(
      `SELECT c.hash, c.entry_id FROM invite_codes c JOIN entries e ON e.id = c.entry_id
       WHERE c.claim_ends_at <= $1 AND (e.invite_held_until IS NULL OR e.invite_held_until < $1)
         AND (e.product_id, e.mode) IN (SELECT * FROM unnest($3::text[], $4::text[]))
       ORDER BY c.claim_ends_at LIMIT $2 FOR UPDATE OF c, e SKIP LOCKED`,
      [now, EXPIRY_BATCH, products, modes],
    );
    if (ended.length === 0) return { ended: 0, expired: 0 };
    await manager.query(`UPDATE invite_codes SET claim_ends_at = NULL, remind_at = NULL, sealed_code = NULL WHERE hash = ANY($1)`, [ended.map((code) => code.hash)]);
    // Read after the locks were taken: the entries as they are now, in line order.
    const expiring: { id: string; product_id: string; mode: Mode; claim_expiry: ClaimExpiry }[] = await manager.query(
      `SELECT e.id, e.product_id, e.mode, p.claim_expiry FROM entries e JOIN products p ON p.id = e.product_id
       WHERE e.id = ANY($1) AND e.state = 'invited'
         AND NOT EXISTS (SELECT 1 FROM invite_codes w WHERE w.entry_id = e.id AND w.expires_at > $2)
       ORDER BY e.product_id, e.mode, ${IN_LINE_ORDER}`,
      [[...new Set(ended.map((code) => code.entry_id))], now],
    );
    const groups = new Map<string, typeof expiring>();
    for (const entry of expiring) {
      const key = `${entry.product_id} ${entry.mode}`;
      groups.set(key, [...(groups.get(key) ?? []), entry]);
    }
    for (const group of groups.values()) {
      const scope = { productId: group[0].product_id, mode: group[0].mode };
      await this.settle(manager, scope, group.map((entry) => entry.id), group[0].claim_expiry, now);
    }
    return { ended: ended.length, expired: expiring.length };
  }

  /** The outcome of one product and mode's expired invitations, and their events, in line order. */
  private async settle(manager: EntityManager, scope: { productId: string; mode: Mode }, ids: string[], outcome: ClaimExpiry, now: Date): Promise<void> {
    if (outcome === 'delete') {
      // Shown as they were, as entry.deleted shows a deleted entry.
      const [deleted]: [StoredEntry[], number] = await manager.query(`DELETE FROM entries WHERE id = ANY($1) RETURNING id, ${STORED_ENTRY_COLUMNS}`, [ids]);
      const byId = new Map(deleted.map((entry) => [entry.id, toEntry(entry)]));
      const entries = ids.map((id) => byId.get(id)!);
      // Deleted like any deletion: no import brings the addresses back.
      await suppress(manager, scope, entries.map((entry) => entry.email), now);
      await recordEvents(manager, 'entry.invitation_expired', scope, entries, now);
      await recordEvents(manager, 'entry.deleted', scope, entries, now);
      return;
    }
    await recordEvents(manager, 'entry.invitation_expired', scope, await this.line.rejoin(manager, scope, ids, outcome === 'end_of_line', now), now);
  }
}
