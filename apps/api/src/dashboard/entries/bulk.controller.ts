import { Body, Controller, Get, Post, Query, Res, UseFilters, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { BulkActions, bulkDone, bulkRequest } from './bulk-actions';
import { DashboardGuard, LoginRedirect } from '../auth/dashboard.guard';
import { InProduct, ProductPage } from '../shared/product-page';
import { Replies } from '../shared/replies';
import { bulkConfirmationPage, listPath } from './pages';

/** The entries list's bulk actions: a page that says how many and asks (GET, changes nothing), then the action (POST), back to the list as it was filtered. */
@Controller('dashboard/:productId/:mode/entries/bulk')
@UseGuards(DashboardGuard)
@UseFilters(LoginRedirect)
export class DashboardBulkController {
  constructor(
    private readonly bulk: BulkActions,
    private readonly replies: Replies,
  ) {}

  @Get()
  async ask(@InProduct() at: ProductPage, @Query() query: Record<string, unknown>, @Res() reply: FastifyReply): Promise<void> {
    const request = bulkRequest(query);
    await this.replies.page(reply, 200, bulkConfirmationPage(at, request, await this.bulk.forecast(at.scope, request)));
  }

  @Post()
  async apply(@InProduct() at: ProductPage, @Body() body: Record<string, unknown> | undefined, @Res() reply: FastifyReply): Promise<void> {
    const request = bulkRequest(body);
    const outcome = await this.bulk.apply(at.scope, request, reply.request.id);
    await this.replies.redirectWith(reply, `${at.base}/entries`, at.identity, bulkDone(outcome), listPath(at, request.filters));
  }
}
