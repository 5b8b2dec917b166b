import { Body, Controller, Get, Param, Post, Query, Res, UseFilters, UseGuards } from '@nestjs/common';
import { toEntry } from '@app/shared';
import type { FastifyReply } from 'fastify';
import { ApiError } from '../../common/api-error';
import type { ProductScope } from '../../common/scope';
import { EntriesService } from '../../entries/entries.service';
import { ProfileService } from '../../entries/profile.service';
import { INVITE_NEXT } from '../../invitations/invitations.dto';
import { InvitationsService } from '../../invitations/invitations.service';
import { MOVE_UP } from '../../line/line.dto';
import { PrivacyTrail } from '../../personal-data/privacy-trail';
import { LineService } from '../../line/line.service';
import { PlaceHistoryService } from '../../line/place-history';
import { ReferralLists } from '../../referrals/referral-lists';
import { csvOf } from './csv';
import { DashboardGuard, LoginRedirect } from '../auth/dashboard.guard';
import { DETAIL_FILTER_FIELDS, digits, entryFilters, parseForm, text } from '../shared/forms';
import { entryDone, entryRefused, invitedNext, movedUp } from '../shared/messages';
import { InProduct, ProductPage } from '../shared/product-page';
import { Replies } from '../shared/replies';
import { deletedEntryPage, deleteEntryPage, entriesPage, entryPage, linePage } from './pages';
import { deliverability } from './undeliverable-pages';

/** How much of the front of the line its page shows. */
const LINE_PAGE = 100;

/** Entries and the line, through the very services the API uses. */
@Controller('dashboard/:productId/:mode')
@UseGuards(DashboardGuard)
@UseFilters(LoginRedirect)
export class DashboardEntriesController {
  constructor(
    private readonly entries: EntriesService,
    private readonly line: LineService,
    private readonly invitations: InvitationsService,
    private readonly referrals: ReferralLists,
    private readonly history: PlaceHistoryService,
    private readonly profiles: ProfileService,
    private readonly trail: PrivacyTrail,
    private readonly replies: Replies,
  ) {}

  @Get('entries')
  async list(@InProduct() at: ProductPage, @Query() query: Record<string, unknown>, @Res() reply: FastifyReply): Promise<void> {
    const filters = entryFilters(query, true);
    const { data, nextCursor } = await this.entries.list(at.scope, filters);
    const email = typeof query.email === 'string' ? query.email.trim() : undefined;
    const notice = await this.replies.notice(at.identity, `${at.base}/entries`);
    const detailFilters = Object.fromEntries(DETAIL_FILTER_FIELDS.flatMap((field) => (text(query[field]).trim() ? [[field, text(query[field]).trim()]] : [])));
    await this.replies.page(reply, 200, entriesPage(at, { entries: data, nextCursor, email, state: filters.state, detailFilters }, notice));
  }

  /** The filtered entries as CSV, newest first, a thousand at a time. */
  @Get('entries.csv')
  async export(@InProduct() at: ProductPage, @Query() query: Record<string, unknown>, @Res() reply: FastifyReply): Promise<void> {
    const filters = entryFilters(query, false);
    const rows = csvOf((cursor) => this.entries.listWithLocale(at.scope, { ...filters, limit: 1000, cursor }), (ids) => this.profiles.detailsOf(ids));
    await this.replies.csv(reply, `entries-${at.mode}.csv`, rows);
  }

  /** An entry the person deleted says so (410, from the privacy trail); an id never seen stays 404. */
  @Get('entries/:id')
  async entry(@InProduct() at: ProductPage, @Param('id') id: string, @Res() reply: FastifyReply): Promise<void> {
    const record = await this.entries.record(at.scope, id).catch(async (error: unknown) => {
      const deletedAt = error instanceof ApiError && error.code === 'not_found' ? await this.trail.deletedAt(at.scope, id) : null;
      if (!deletedAt) throw error;
      await this.replies.page(reply, 410, deletedEntryPage(at, id, deletedAt));
      return null;
    });
    if (!record) return;
    const view = {
      entry: toEntry(record),
      locale: record.locale,
      place: record.state === 'confirmed' ? await this.line.placeInLine(record) : null,
      movedUp: record.movedUp,
      deliverability: deliverability(record),
      referrals: (await this.referrals.list(at.scope, id, { limit: 100 })).data,
      history: (await this.history.list(at.scope, id, { limit: 100 })).data,
      milestones: await this.referrals.milestonesOf(id),
      details: (await this.profiles.detailsOf([id])).get(id),
    };
    const notice = await this.replies.notice(at.identity, `${at.base}/entries/${encodeURIComponent(id)}`);
    await this.replies.page(reply, 200, entryPage(at, view, notice));
  }

  /** What deleting the entry takes with it; its button posts to delete. */
  @Get('entries/:id/delete')
  async confirmDelete(@InProduct() at: ProductPage, @Param('id') id: string, @Res() reply: FastifyReply): Promise<void> {
    const record = await this.entries.record(at.scope, id);
    const place = record.state === 'confirmed' ? await this.line.placeInLine(record) : null;
    // A referrer is credited when the entry it referred confirms, and keeps that credit.
    const referrer = record.referredBy && record.confirmedAt ? (await this.entries.record(at.scope, record.referredBy)).email : null;
    await this.replies.page(reply, 200, deleteEntryPage(at, { entry: toEntry(record), place, referrer }));
  }

  /** Invite, reinvite, move up or delete; a refusal is shown on the entry's page, in words. */
  @Post('entries/:id/:action')
  async act(
    @InProduct() at: ProductPage,
    @Param('id') id: string,
    @Param('action') action: string,
    @Body() body: { places?: unknown },
    @Res() reply: FastifyReply,
  ): Promise<void> {
    // An unknown entry is 404, not a refusal shown on a page that does not exist.
    const record = await this.entries.record(at.scope, id);
    const page = `${at.base}/entries/${encodeURIComponent(id)}`;
    try {
      const before = action === 'move-up' && record.state === 'confirmed' ? await this.line.placeInLine(record) : null;
      const done = await this.perform(at.scope, id, action, body, reply.request.id);
      if (done === 'deleted') return await this.replies.redirectWith(reply, `${at.base}/entries`, at.identity, { done: `${record.email} is deleted.` });
      const words = done === 'moved-up' ? movedUp(record.email, before, await this.line.placeInLine(await this.entries.record(at.scope, id))) : entryDone(done);
      await this.replies.redirectWith(reply, page, at.identity, { done: words });
    } catch (error) {
      const words = error instanceof ApiError ? entryRefused(error.code) : undefined;
      if (!words) throw error;
      await this.replies.redirectWith(reply, page, at.identity, { refused: words });
    }
  }

  @Get('line')
  async showLine(@InProduct() at: ProductPage, @Res() reply: FastifyReply): Promise<void> {
    const notice = await this.replies.notice(at.identity, `${at.base}/line`);
    await this.replies.page(reply, 200, linePage(at, await this.line.front(at.scope, LINE_PAGE), LINE_PAGE, notice));
  }

  @Post('line/invite-next')
  async inviteNext(@InProduct() at: ProductPage, @Body() body: { count?: unknown }, @Res() reply: FastifyReply): Promise<void> {
    const { count } = parseForm(INVITE_NEXT, { count: digits(body?.count) });
    const { invited, failed } = await this.invitations.inviteNext(at.scope, count, reply.request.id);
    await this.replies.redirectWith(reply, `${at.base}/line`, at.identity, { done: invitedNext(invited.length, failed.length) });
  }

  /** The action's outcome, by the name messages.ts gives its words ('deleted' leaves no page to show it on). */
  private async perform(scope: ProductScope, id: string, action: string, body: { places?: unknown }, requestId: string): Promise<string> {
    switch (action) {
      case 'invite':
        await this.invitations.invite(scope, id, requestId);
        return 'invited';
      case 'reinvite':
        await this.invitations.reinvite(scope, id, requestId);
        return 'reinvited';
      case 'move-up':
        await this.line.moveUp(scope, id, parseForm(MOVE_UP, { places: digits(body?.places) }).places);
        return 'moved-up';
      case 'delete':
        await this.entries.delete(scope, id);
        return 'deleted';
      default:
        throw new ApiError('not_found', 'No such page.');
    }
  }
}
