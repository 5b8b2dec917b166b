import { Controller, Get, Param, Post, Query, Res, UseFilters, UseGuards } from '@nestjs/common';
import type { EntryRecord } from '@app/shared';
import type { FastifyReply } from 'fastify';
import { ApiError } from '../../common/api-error';
import { EntriesService } from '../../entries/entries.service';
import { LeaderboardService } from '../../leaderboard/leaderboard.service';
import { LineService } from '../../line/line.service';
import type { TeamDecision } from '../../referrals/referral-credit';
import { ReferralLists } from '../../referrals/referral-lists';
import { ReferralsService } from '../../referrals/referrals.service';
import { DashboardGuard, LoginRedirect } from '../auth/dashboard.guard';
import { entryRefused, referralDecided } from '../shared/messages';
import { InProduct, ProductPage } from '../shared/product-page';
import { Replies } from '../shared/replies';
import { reviewPage, revokeReferralPage } from './referral-pages';

/** How many withheld referrals the review page shows. */
const REVIEW_PAGE = 100;

type Back = 'entry' | 'review';
const backTo = (value: unknown): Back => (value === 'review' ? 'review' : 'entry');

/** Referrals to review, and the team's grant and revoke, through the service the API uses. */
@Controller('dashboard/:productId/:mode')
@UseGuards(DashboardGuard)
@UseFilters(LoginRedirect)
export class DashboardReferralsController {
  constructor(
    private readonly referrals: ReferralsService,
    private readonly lists: ReferralLists,
    private readonly entries: EntriesService,
    private readonly leaderboard: LeaderboardService,
    private readonly line: LineService,
    private readonly replies: Replies,
  ) {}

  @Get('referrals')
  async review(@InProduct() at: ProductPage, @Res() reply: FastifyReply): Promise<void> {
    const [items, leaders] = await Promise.all([this.lists.toReview(at.scope, REVIEW_PAGE), this.leaderboard.board(at.scope)]);
    const notice = await this.replies.notice(at.identity, `${at.base}/referrals`);
    await this.replies.page(reply, 200, reviewPage(at, items, REVIEW_PAGE, leaders, notice));
  }

  /** What revoking the referral does; its button posts the revoke. */
  @Get('entries/:id/referrals/:referralId/revoke')
  async confirmRevoke(
    @InProduct() at: ProductPage,
    @Param('id') id: string,
    @Param('referralId') referralId: string,
    @Query('back') back: unknown,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const referrer = await this.entries.record(at.scope, id);
    const referral = await this.lists.find(at.scope, id, referralId);
    await this.replies.page(reply, 200, revokeReferralPage(at, referrer, referral, at.product.referralPlaces, backTo(back)));
  }

  /** Grant or revoke, saying where the referrer stood before and after; a refusal is said in words, on the page the team came from. */
  @Post('entries/:id/referrals/:referralId/:decision')
  async decide(
    @InProduct() at: ProductPage,
    @Param('id') id: string,
    @Param('referralId') referralId: string,
    @Param('decision') decision: string,
    @Query('back') back: unknown,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    if (decision !== 'grant' && decision !== 'revoke') throw new ApiError('not_found', 'No such page.');
    const referrer = await this.entries.record(at.scope, id);
    const page = backTo(back) === 'review' ? `${at.base}/referrals` : `${at.base}/entries/${encodeURIComponent(id)}`;
    try {
      const before = await this.place(referrer);
      await this.referrals.decide(at.scope, id, referralId, decision satisfies TeamDecision);
      const after = await this.place(await this.entries.record(at.scope, id));
      await this.replies.redirectWith(reply, page, at.identity, { done: referralDecided(decision, referrer.email, before, after) });
    } catch (error) {
      const words = error instanceof ApiError && error.code !== 'not_found' ? entryRefused(error.code) : undefined;
      if (!words) throw error;
      await this.replies.redirectWith(reply, page, at.identity, { refused: words });
    }
  }

  private async place(entry: EntryRecord): Promise<number | null> {
    return entry.state === 'confirmed' ? this.line.placeInLine(entry) : null;
  }
}
