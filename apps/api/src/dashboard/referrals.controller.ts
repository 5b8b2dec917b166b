import { Controller, Get, Param, Post, Query, Res, UseFilters, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { ApiError } from '../common/api-error';
import { EntriesService } from '../entries/entries.service';
import { LeaderboardService } from '../leaderboard/leaderboard.service';
import type { TeamDecision } from '../referrals/referral-credit';
import { ReferralLists } from '../referrals/referral-lists';
import { ReferralsService } from '../referrals/referrals.service';
import { DashboardGuard, LoginRedirect } from './dashboard.guard';
import { entryMessage } from './messages';
import { InProduct, ProductPage } from './product-page';
import { Replies } from './replies';
import { reviewPage, revokeReferralPage } from './views/referrals';

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
    private readonly replies: Replies,
  ) {}

  @Get('referrals')
  async review(@InProduct() at: ProductPage, @Res() reply: FastifyReply): Promise<void> {
    const [items, leaders] = await Promise.all([this.lists.toReview(at.scope, REVIEW_PAGE), this.leaderboard.board(at.scope)]);
    await this.replies.page(reply, 200, reviewPage(at, items, REVIEW_PAGE, leaders));
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

  /** Grant or revoke; a refusal is shown on the referrer's page, in words. */
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
    await this.entries.record(at.scope, id);
    const page = backTo(back) === 'review' ? `${at.base}/referrals` : `${at.base}/entries/${encodeURIComponent(id)}`;
    try {
      await this.referrals.decide(at.scope, id, referralId, decision satisfies TeamDecision);
      await this.replies.redirect(reply, backTo(back) === 'review' ? page : `${page}?message=${decision === 'grant' ? 'granted' : 'revoked'}`);
    } catch (error) {
      if (!(error instanceof ApiError) || error.code === 'not_found' || !entryMessage(error.code)) throw error;
      await this.replies.redirect(reply, `${page}?message=${error.code}`);
    }
  }
}
