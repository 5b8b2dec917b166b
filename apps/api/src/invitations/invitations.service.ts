import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Clock, Entry, EntryRecord, IN_LINE_ORDER, INVITATION_WAIT_MS, Metrics, recordAbandonedMarks, recordMarked, toEntry } from '@app/shared';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource, EntityManager } from 'typeorm';
import type { ProductScope } from '../common/scope';
import { ApiError } from '../common/api-error';
import { notFound } from '../entries/entries.service';
import { LineService } from '../line/line.service';
import { Capacity, capacityReached } from './capacity';
import { InvitationMailer } from './invitation-mailer';
import type { InviteNextResult } from './invitations.dto';

/** Entries of one invite-next call whose mails one mailer job sends. */
const INVITE_NEXT_CHUNK = 100;
/** Chunks of one invite-next call in flight at once, so that the mailer has the next one while it records the last. */
const INVITE_NEXT_CONCURRENCY = 2;
/** How long invite-next holds the entries it took until each one's turn comes. */
const BATCH_HOLD_MS = 10 * 60_000;
/** A single invitation holds its entry a little longer than the API waits for the outcome. */
const HOLD_MS = INVITATION_WAIT_MS + 5_000;

/** What a release's run did: the entries invited and those whose mail failed (still in line), and how many the cap left out. */
export interface ReleaseOutcome extends InviteNextResult {
  skippedForCapacity: number;
}

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
    private readonly capacity: Capacity,
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

  /**
   * The first `count` entries in line order; concurrent calls never take the same entry. With a capacity
   * cap, a call that would take more entries than places are free answers capacity_reached.
   */
  async inviteNext(scope: ProductScope, count: number, httpRequestId?: string): Promise<InviteNextResult> {
    const { invited, failed } = await this.inviteFront(scope, count, 'all', randomUUID(), httpRequestId);
    return { invited, failed };
  }

  /**
   * A release's run: invite-next of what fits under the cap, min(count, cap − outstanding), under the
   * run's own request id, which the run records first so that another api can take it over.
   */
  async release(scope: ProductScope, count: number, requestId: string): Promise<ReleaseOutcome> {
    return this.inviteFront(scope, count, 'what fits', requestId);
  }

  /**
   * For the request of a process that died (a release run taken over): the entries it invited (with
   * the handovers a mailer marked and never recorded), once nothing can come of it any more. Its holds
   * are cut to HOLD_MS from now: every mail job it
   * gave the mailer was added before now and is settled within INVITATION_WAIT_MS of that (its mails
   * start before its deadline and end within the send bound), so when the holds of its entries still
   * waiting have ended, each of them either went out (and is invited by it) or never will, and is
   * back in line. Cutting a hold never lengthens one, so it is safe even beside a request still alive.
   */
  async outlive(scope: ProductScope, requestId: string): Promise<string[]> {
    const owned = `product_id = $1 AND mode = $2 AND invite_request = $3`;
    await this.db.query(`UPDATE entries SET invite_held_until = LEAST(invite_held_until, $4) WHERE ${owned} AND invite_held_until IS NOT NULL`, [
      scope.productId,
      scope.mode,
      requestId,
      new Date(this.clock.now().getTime() + HOLD_MS),
    ]);
    for (;;) {
      const [{ until }]: { until: Date | null }[] = await this.db.query(
        `SELECT max(invite_held_until) AS until FROM entries WHERE ${owned} AND state = 'confirmed' AND invite_held_until >= $4`,
        [scope.productId, scope.mode, requestId, this.clock.now()],
      );
      if (!until) break;
      await sleep(until.getTime() - this.clock.now().getTime() + 1);
    }
    const held: { id: string }[] = await this.db.query(`SELECT id FROM entries WHERE ${owned}`, [scope.productId, scope.mode, requestId]);
    await recordMarked(this.db, requestId, held.map((row) => row.id), false, this.clock.now());
    const rows: { id: string }[] = await this.db.query(`SELECT id FROM entries WHERE product_id = $1 AND mode = $2 AND invited_by_request = $3 ORDER BY ${IN_LINE_ORDER}`, [
      scope.productId,
      scope.mode,
      requestId,
    ]);
    return rows.map((row) => row.id);
  }

  private async inviteFront(scope: ProductScope, count: number, fit: 'all' | 'what fits', requestId: string, httpRequestId?: string): Promise<ReleaseOutcome> {
    const now = this.clock.now();
    // Taken again, such an entry would be mailed again; with the same `now`, every entry whose hold ran out for takeFront was seen here.
    await recordAbandonedMarks(this.db, scope, now);
    const hold = { requestId, heldUntil: new Date(now.getTime() + BATCH_HOLD_MS), now };
    const { taken, skippedForCapacity } = await this.takeFront(scope, count, hold, fit);
    const chunks = Array.from({ length: Math.ceil(taken.length / INVITE_NEXT_CHUNK) }, (_, i) => taken.slice(i * INVITE_NEXT_CHUNK, (i + 1) * INVITE_NEXT_CHUNK));
    const invited = new Set<string>();
    let next = 0;
    const worker = async () => {
      while (next < chunks.length) {
        const ids = chunks[next++];
        await this.extendHold(ids, requestId);
        for (const id of await this.deliver(ids, requestId, false, httpRequestId)) invited.add(id);
      }
    };
    await Promise.all(Array.from({ length: Math.min(INVITE_NEXT_CONCURRENCY, chunks.length) }, worker));
    return { invited: taken.filter((id) => invited.has(id)), failed: taken.filter((id) => !invited.has(id)), skippedForCapacity };
  }

  /** The front of the line held for a request; without a cap exactly as before, with one counted under the cap's lock. */
  private async takeFront(
    scope: ProductScope,
    count: number,
    hold: { requestId: string; heldUntil: Date; now: Date },
    fit: 'all' | 'what fits',
  ): Promise<{ taken: string[]; skippedForCapacity: number }> {
    const cap = await this.capacity.of(scope);
    if (cap === null) return { taken: await this.line.takeFront(scope, count, hold), skippedForCapacity: 0 };
    return this.capacity.within(scope, cap, async (manager, free) => {
      if (fit === 'what fits') {
        const fits = Math.min(count, free);
        return { taken: fits > 0 ? await this.line.takeFront(scope, fits, hold, manager) : [], skippedForCapacity: count - fits };
      }
      const taken = await this.line.takeFront(scope, count, hold, manager);
      if (taken.length > free) throw capacityReached(cap, free);
      return { taken, skippedForCapacity: 0 };
    });
  }

  /** httpRequestId: the X-Request-Id of the request, carried to the mailer's lines about the mail. */
  private async sendInvitation(scope: ProductScope, id: string, again: boolean, httpRequestId: string | undefined): Promise<Entry> {
    const requestId = await this.hold(scope, id, again);
    if ((await this.deliver([id], requestId, again, httpRequestId)).length === 0) {
      throw new ApiError('mail_failed', 'The invitation mail could not be handed over; nothing was changed. Try again.');
    }
    return toEntry(await this.db.getRepository(EntryRecord).findOneByOrFail({ id }));
  }

  /**
   * Holds the entry for this request, or explains with the spec's error why it cannot be invited now.
   * With a capacity cap, the hold is taken under the cap's lock and given back if the entry would pass
   * the cap: a new invitation, or a reinvite whose code had expired (one that works is counted already).
   */
  private async hold(scope: ProductScope, id: string, again: boolean): Promise<string> {
    const cap = await this.capacity.of(scope);
    if (cap === null) return this.holdEntry(this.db.manager, scope, id, again);
    return this.capacity.within(scope, cap, async (manager, free) => {
      const requestId = await this.holdEntry(manager, scope, id, again);
      const counted = again && (await manager.query('SELECT 1 FROM invite_codes WHERE entry_id = $1 AND expires_at > $2 LIMIT 1', [id, this.clock.now()])).length > 0;
      if (!counted && free < 1) throw capacityReached(cap, free);
      return requestId;
    });
  }

  private async holdEntry(manager: EntityManager, scope: ProductScope, id: string, again: boolean): Promise<string> {
    const requestId = randomUUID();
    const now = this.clock.now();
    const [, held]: [unknown, number] = await manager.query(
      `UPDATE entries SET invite_request = $4, invite_held_until = $5
       WHERE id = $1 AND product_id = $2 AND mode = $3 AND state = $6
         AND (invite_held_until IS NULL OR invite_held_until < $7)`,
      [id, scope.productId, scope.mode, requestId, new Date(now.getTime() + HOLD_MS), again ? 'invited' : 'confirmed', now],
    );
    if (held === 1) return requestId;
    const entry = await manager.getRepository(EntryRecord).findOneBy({ id, productId: scope.productId, mode: scope.mode });
    if (!entry) throw notFound();
    if (again) {
      if (entry.state === 'redeemed') throw new ApiError('already_redeemed', 'The entry has redeemed its invitation.');
      if (entry.state !== 'invited') throw new ApiError('not_invited', 'The entry was not invited yet.');
      throw new ApiError('idempotency_in_progress', 'An invitation mail for this entry is being sent right now.');
    }
    if (entry.state === 'pending') throw new ApiError('not_confirmed', 'The entry has not confirmed its address.');
    throw new ApiError('already_invited', 'The entry was already invited, or its invitation is being sent right now.');
  }

  /**
   * Has the mailer hand over the mails of entries this request holds, records what it marked handed
   * over but did not record, and settles each; the ids whose mail was handed over. A job's mails start
   * only before its deadline, so the mailer leaves those it could not start (a slow server), and they
   * go in another job as long as the last one got mails out.
   */
  private async deliver(ids: string[], requestId: string, again: boolean, httpRequestId: string | undefined): Promise<string[]> {
    const sent: string[] = [];
    let pending = ids;
    while (pending.length > 0) {
      await this.mailer.send({ entryIds: pending, requestId, again, httpRequestId });
      const untried = await this.untried(pending, requestId);
      const tried = pending.filter((id) => !untried.has(id));
      // A mailer that died before the end of its job left its handovers marked, not recorded.
      await recordMarked(this.db, requestId, tried, again, this.clock.now());
      const settled = await this.settle(tried, requestId);
      sent.push(...settled);
      pending = pending.filter((id) => untried.has(id));
      if (pending.length === 0) break;
      // With no mail out this time, another job would fare no better: the rest fail.
      if (settled.length === 0) {
        sent.push(...(await this.settle(pending, requestId)));
        break;
      }
      await this.extendHold(pending, requestId);
    }
    return sent;
  }

  /** Entries the request still holds whose mail never started: the mailer left no code of the request for them. */
  private async untried(ids: string[], requestId: string): Promise<Set<string>> {
    const rows: { id: string }[] = await this.db.query(
      `SELECT e.id FROM entries e
       WHERE e.id = ANY($1) AND e.invite_request = $2 AND e.invited_by_request IS DISTINCT FROM $2
         AND NOT EXISTS (SELECT 1 FROM invite_codes c WHERE c.entry_id = e.id AND c.request_id = $2)`,
      [ids, requestId],
    );
    return new Set(rows.map((row) => row.id));
  }

  /** The holds of a chunk of invite-next, renewed when its turn comes, and of the mails a job left over. */
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
