import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Clock, Entry, EntryRecord, EntryState, hashToken, INVITATION_WAIT_MS, Metrics, recordEvent, recordHandover, toEntry } from '@app/shared';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import type { ProductScope } from '../common/scope';
import { ApiError } from '../common/api-error';
import { preparedQuery } from '../common/prepared';
import { notFound } from '../entries/entries.service';
import { LineService } from '../line/line.service';
import { InvitationMailer } from './invitation-mailer';
import type { CodeCheck, InvitedAnswer, InviteNextResult } from './invitations.dto';

/** Entries of one invite-next call whose mails one mailer job sends. */
const INVITE_NEXT_CHUNK = 100;
/** Chunks of one invite-next call in flight at once, so that the mailer has the next one while it records the last. */
const INVITE_NEXT_CONCURRENCY = 2;
/** How long invite-next holds the entries it took until each one's turn comes. */
const BATCH_HOLD_MS = 10 * 60_000;
/** A single invitation holds its entry a little longer than the API waits for the outcome. */
const HOLD_MS = INVITATION_WAIT_MS + 5_000;

/**
 * Who gets in, exactly once. An invitation first holds its entry (so that no concurrent request
 * takes it), then asks the mailer to hand the mail over; the mailer records a handover itself, and
 * the request settles against the entry whatever the mailer answered or did not answer in time.
 * The API and the dashboard both invite through this service.
 */
@Injectable()
export class InvitationsService {
  private readonly outcomes;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly mailer: InvitationMailer,
    private readonly line: LineService,
    private readonly clock: Clock,
    metrics: Metrics,
  ) {
    this.outcomes = metrics.counter({
      name: 'waitlist_invitations_total',
      help: 'Entries an invite, reinvite or invite-next request asked to invite, by outcome: invited, or mail_failed',
      labelNames: ['outcome'],
    });
  }

  /** Invites a confirmed entry: 200 with the entry once the mail was handed over, else 502 mail_failed. */
  async invite(scope: ProductScope, id: string, httpRequestId?: string): Promise<Entry> {
    return this.sendInvitation(scope, id, false, httpRequestId);
  }

  /** A new mail with a new code for an invited entry; the old code stops working once it is handed over. */
  async reinvite(scope: ProductScope, id: string, httpRequestId?: string): Promise<Entry> {
    return this.sendInvitation(scope, id, true, httpRequestId);
  }

  /** The first `count` entries in line order; concurrent calls never take the same entry. */
  async inviteNext(scope: ProductScope, count: number, httpRequestId?: string): Promise<InviteNextResult> {
    const requestId = randomUUID();
    const now = this.clock.now();
    const taken = await this.line.takeFront(scope, count, { requestId, heldUntil: new Date(now.getTime() + BATCH_HOLD_MS), now });
    const chunks = Array.from({ length: Math.ceil(taken.length / INVITE_NEXT_CHUNK) }, (_, i) => taken.slice(i * INVITE_NEXT_CHUNK, (i + 1) * INVITE_NEXT_CHUNK));
    const invited = new Set<string>();
    let next = 0;
    const worker = async () => {
      while (next < chunks.length) {
        const ids = chunks[next++];
        await this.extendHold(ids, requestId);
        await this.mailer.send({ entryIds: ids, requestId, again: false, httpRequestId });
        for (const id of await this.settle(ids, requestId)) invited.add(id);
      }
    };
    await Promise.all(Array.from({ length: Math.min(INVITE_NEXT_CONCURRENCY, chunks.length) }, worker));
    return { invited: taken.filter((id) => invited.has(id)), failed: taken.filter((id) => !invited.has(id)) };
  }

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

  /** httpRequestId: the X-Request-Id of the request, carried to the mailer's lines about the mail. */
  private async sendInvitation(scope: ProductScope, id: string, again: boolean, httpRequestId: string | undefined): Promise<Entry> {
    const requestId = await this.hold(scope, id, again);
    await this.mailer.send({ entryIds: [id], requestId, again, httpRequestId });
    if ((await this.settle([id], requestId)).length === 0) {
      throw new ApiError('mail_failed', 'The invitation mail could not be handed over; nothing was changed. Try again.');
    }
    return toEntry(await this.db.getRepository(EntryRecord).findOneByOrFail({ id }));
  }

  /** Holds the entry for this request, or explains with the spec's error why it cannot be invited now. */
  private async hold(scope: ProductScope, id: string, again: boolean): Promise<string> {
    const requestId = randomUUID();
    const now = this.clock.now();
    const [, held]: [unknown, number] = await this.db.query(
      `UPDATE entries SET invite_request = $4, invite_held_until = $5
       WHERE id = $1 AND product_id = $2 AND mode = $3 AND state = $6
         AND (invite_held_until IS NULL OR invite_held_until < $7)`,
      [id, scope.productId, scope.mode, requestId, new Date(now.getTime() + HOLD_MS), again ? 'invited' : 'confirmed', now],
    );
    if (held === 1) return requestId;
    const entry = await this.db.getRepository(EntryRecord).findOneBy({ id, productId: scope.productId, mode: scope.mode });
    if (!entry) throw notFound();
    if (again) {
      if (entry.state === 'redeemed') throw new ApiError('already_redeemed', 'The entry has redeemed its invitation.');
      if (entry.state !== 'invited') throw new ApiError('not_invited', 'The entry was not invited yet.');
      throw new ApiError('idempotency_in_progress', 'An invitation mail for this entry is being sent right now.');
    }
    if (entry.state === 'pending') throw new ApiError('not_confirmed', 'The entry has not confirmed its address.');
    throw new ApiError('already_invited', 'The entry was already invited, or its invitation is being sent right now.');
  }

  /** The holds of a chunk of invite-next, renewed when its turn comes. */
  private async extendHold(ids: string[], requestId: string): Promise<void> {
    await this.db.query(`UPDATE entries SET invite_held_until = $3 WHERE id = ANY($1) AND invite_request = $2`, [
      ids,
      requestId,
      new Date(this.clock.now().getTime() + HOLD_MS),
    ]);
  }

  /**
   * The request's own outcome for each of `ids`, whatever other requests do: the ids whose mail was
   * handed over (the mailer set invited_by_request). The hold ends here, not when the mailer records,
   * so no other request takes an entry before this one has settled; releasing it also takes away the
   * mailer's right to record, so a mail that somehow leaves later cannot make the entry invited after
   * the caller was told mail_failed (its code is recorded only if it is used).
   */
  private async settle(ids: string[], requestId: string): Promise<string[]> {
    const [rows]: [{ id: string; sent: boolean }[], number] = await this.db.query(
      `UPDATE entries SET invite_held_until = NULL, invite_request = NULL
       WHERE id = ANY($1) AND invite_request = $2
       RETURNING id, invited_by_request IS NOT DISTINCT FROM $2 AS sent`,
      [ids, requestId],
    );
    const released = new Set(rows.map((row) => row.id));
    const lost = ids.filter((id) => !released.has(id));
    // An entry whose hold had run out and another request took it, or that was deleted.
    const elsewhere: { id: string }[] = lost.length
      ? await this.db.query(`SELECT id FROM entries WHERE id = ANY($1) AND invited_by_request = $2`, [lost, requestId])
      : [];
    const sent = [...rows.filter((row) => row.sent).map((row) => row.id), ...elsewhere.map((row) => row.id)];
    this.outcomes.inc({ outcome: 'invited' }, sent.length);
    this.outcomes.inc({ outcome: 'mail_failed' }, ids.length - sent.length);
    return sent;
  }
}
