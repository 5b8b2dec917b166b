import { Controller, Get, Param, Post, Res, UseFilters, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { EntriesService } from '../../entries/entries.service';
import { MailFeedbackService, UNDELIVERABLE_PAGE } from '../../mail-feedback/mail-feedback.service';
import { DashboardGuard, LoginRedirect } from '../auth/dashboard.guard';
import { InProduct, ProductPage } from '../shared/product-page';
import { Replies } from '../shared/replies';
import { clearPage, undeliverablePage } from './undeliverable-pages';

/** The addresses that bounced, to review and clear. */
@Controller('dashboard/:productId/:mode/undeliverable')
@UseGuards(DashboardGuard)
@UseFilters(LoginRedirect)
export class DashboardUndeliverableController {
  constructor(
    private readonly feedback: MailFeedbackService,
    private readonly entries: EntriesService,
    private readonly replies: Replies,
  ) {}

  @Get()
  async list(@InProduct() at: ProductPage, @Res() reply: FastifyReply): Promise<void> {
    await this.replies.page(reply, 200, undeliverablePage(at, await this.feedback.undeliverable(at.scope), UNDELIVERABLE_PAGE));
  }

  /** What clearing changes; its button posts to clear. */
  @Get(':id/clear')
  async confirmClear(@InProduct() at: ProductPage, @Param('id') id: string, @Res() reply: FastifyReply): Promise<void> {
    await this.replies.page(reply, 200, clearPage(at, await this.entries.record(at.scope, id)));
  }

  @Post(':id/clear')
  async clear(@InProduct() at: ProductPage, @Param('id') id: string, @Res() reply: FastifyReply): Promise<void> {
    await this.feedback.clear(at.scope, id);
    await this.replies.redirect(reply, `${at.base}/undeliverable`);
  }
}
