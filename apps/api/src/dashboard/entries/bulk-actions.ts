import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { EntryRecord } from '@app/shared';
import { DataSource, In } from 'typeorm';
import { ApiError } from '../../common/api-error';
import type { ProductScope } from '../../common/scope';
import { EntriesService } from '../../entries/entries.service';
import type { ListQuery } from '../../entries/entries.service';
import { Capacity } from '../../invitations/capacity';
import { InvitationsService } from '../../invitations/invitations.service';
import { MOVE_UP } from '../../line/line.dto';
import { LineService } from '../../line/line.service';
import { DETAIL_FILTER_FIELDS, digits, entryFilters, parseForm, text, texts } from '../shared/forms';
import { counted, refusal, refusedCount } from '../shared/messages';
import type { Notice } from '../auth/notice';

export const BULK_ACTIONS = ['invite', 'move-up', 'delete'] as const;
export type BulkAction = (typeof BULK_ACTIONS)[number];

/** Entries one bulk action takes at most: invite-next's most, so that one request stays a request. */
export const BULK_LIMIT = 1_000;
/** Entries acted on at once: an invitation waits for its mail, so a few overlap. */
const AT_ONCE = 8;
/** Refused entries a result names; the rest are counted with their reason. */
const NAMED = 20;

/** What the entries list's form asks for: an action, and a selection or every entry of a filter. */
export interface BulkRequest {
  action: BulkAction;
  places?: number;
  /** The selected entries, or null for every entry of `filters`. */
  ids: string[] | null;
  filters: ListQuery;
}

export interface BulkOutcome {
  action: BulkAction;
  done: number;
  total: number;
  /** The refused entries by reason (its error code), each reason once, in the dashboard's words, with the first NAMED of all named (address, else id). */
  refused: { code: string; words: string; count: number; named: string[] }[];
}

/** What the page that asks says will happen: the entries it names, and for an invitation under a capacity cap how many the cap lets through. */
export interface BulkForecast {
  count: number;
  capacity?: { cap: number; free: number; waiting: number };
}

/** The form as posted or put in the query: refused whole, naming the field, before anything is done. */
export function bulkRequest(form: Record<string, unknown> | undefined): BulkRequest {
  const action = text(form?.action);
  if (!(BULK_ACTIONS as readonly string[]).includes(action)) throw new ApiError('invalid_request', 'Choose an action: invite, move up or delete.', { param: 'action' });
  const places = action === 'move-up' ? parseForm(MOVE_UP, { places: digits(form?.places) }).places : undefined;
  const detailFields = Object.fromEntries(DETAIL_FILTER_FIELDS.map((field) => [field, text(form?.[field])]));
  const filters = entryFilters({ email: text(form?.email), state: text(form?.state), ...detailFields }, false);
  if (text(form?.scope) === 'filter') return { action: action as BulkAction, places, ids: null, filters };
  const ids = [...new Set(texts(form?.ids))];
  if (ids.length === 0 || ids.length > BULK_LIMIT) {
    throw new ApiError('invalid_request', `Select from 1 to ${BULK_LIMIT.toLocaleString('en-US')} entries.`, { param: 'ids' });
  }
  return { action: action as BulkAction, places, ids, filters };
}

/** Bulk actions of the dashboard's entries list, each entry through the same service as the API's call for one. */
@Injectable()
export class BulkActions {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly entries: EntriesService,
    private readonly line: LineService,
    private readonly invitations: InvitationsService,
    private readonly capacity: Capacity,
  ) {}

  /** How many entries the request names, and under a capacity cap how many of the waiting ones among them it has places for. */
  async forecast(scope: ProductScope, request: BulkRequest): Promise<BulkForecast> {
    const ids = await this.targets(scope, request);
    const capacity = request.action === 'invite' ? await this.capacity.free(scope) : null;
    if (!capacity) return { count: ids.length };
    const waiting = await this.db.getRepository(EntryRecord).countBy({ id: In(ids), productId: scope.productId, mode: scope.mode, state: 'confirmed' });
    return { count: ids.length, capacity: { ...capacity, waiting } };
  }

  /** The entries the request names: its selection, or every entry of its filter now (at most BULK_LIMIT). */
  async targets(scope: ProductScope, request: BulkRequest): Promise<string[]> {
    if (request.ids) return request.ids;
    const { data, nextCursor } = await this.entries.list(scope, { ...request.filters, limit: BULK_LIMIT });
    if (nextCursor) {
      throw new ApiError('invalid_request', `More than ${BULK_LIMIT.toLocaleString('en-US')} entries match this filter; narrow it by state or address to act on them together.`);
    }
    return data.map((entry) => entry.id);
  }

  async apply(scope: ProductScope, request: BulkRequest, requestId: string): Promise<BulkOutcome> {
    const ids = await this.targets(scope, request);
    const known = await this.db.getRepository(EntryRecord).find({ select: { id: true, email: true }, where: { id: In(ids), productId: scope.productId, mode: scope.mode } });
    const emails = new Map(known.map((entry) => [entry.id, entry.email]));
    const outcome: BulkOutcome = { action: request.action, done: 0, total: ids.length, refused: [] };
    const reasons = new Map<string, BulkOutcome['refused'][number]>();
    let named = 0;
    for (let start = 0; start < ids.length; start += AT_ONCE) {
      await Promise.all(
        ids.slice(start, start + AT_ONCE).map(async (id) => {
          try {
            await this.perform(scope, request, id, requestId);
            outcome.done++;
          } catch (error) {
            const { words } = refusal(error);
            const { code } = error as ApiError;
            // One reason per code, except that the service's own words of a code without dashboard words may differ.
            const key = `${code} ${words}`;
            let reason = reasons.get(key);
            if (!reason) reasons.set(key, (reason = { code, words, count: 0, named: [] }));
            reason.count++;
            if (named++ < NAMED) reason.named.push(emails.get(id) ?? id);
          }
        }),
      );
    }
    outcome.refused = [...reasons.values()];
    return outcome;
  }

  private async perform(scope: ProductScope, request: BulkRequest, id: string, requestId: string): Promise<void> {
    switch (request.action) {
      case 'invite':
        await this.invitations.invite(scope, id, requestId);
        return;
      case 'move-up':
        await this.line.moveUp(scope, id, request.places!);
        return;
      case 'delete':
        await this.entries.delete(scope, id);
        return;
    }
  }
}

const BULK_DONE: Record<BulkAction, string> = { invite: 'invited', 'move-up': 'moved up', delete: 'deleted' };

/** "2 of 3 entries invited.", then each reason the others were refused for, once, with the entries it names. */
export function bulkDone(outcome: BulkOutcome): Pick<Notice, 'done' | 'notes'> {
  const named = outcome.refused.reduce((sum, reason) => sum + reason.named.length, 0);
  const unnamed = outcome.total - outcome.done - named;
  const notes = outcome.refused.map((reason) =>
    reason.count === 1 && reason.named.length === 1
      ? `${reason.named[0]}: ${reason.words}`
      : `${refusedCount(reason.code, reason.words, reason.count)}${reason.named.length ? ` (${reason.named.join(', ')}${reason.named.length < reason.count ? ', …' : ''})` : ''}`,
  );
  if (unnamed > 0) notes.push(counted('{count, plural, one {# entry is} other {# entries are}} not named here.', { count: unnamed }));
  return { done: counted(`{done, number} of {total, plural, one {# entry} other {# entries}} ${BULK_DONE[outcome.action]}.`, { done: outcome.done, total: outcome.total }), notes };
}
