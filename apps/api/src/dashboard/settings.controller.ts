import { Body, Controller, Get, Post, Res, UseFilters, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { PRODUCT_SETTINGS, ProductsService } from '../products/products.service';
import { questionsAsText } from '../products/questions-form';
import { milestonesAsText } from '../referrals/milestones';
import { rulesAsText } from '../referrals/protection';
import { DashboardGuard, LoginRedirect } from './dashboard.guard';
import { parseForm, settingsForm } from './forms';
import { refusal } from './messages';
import { InProduct, ProductPage } from './product-page';
import { Replies } from './replies';
import { settingsPage } from './views/settings';

/** A product's settings; they are the same in both modes. */
@Controller('dashboard/:productId/:mode')
@UseGuards(DashboardGuard)
@UseFilters(LoginRedirect)
export class DashboardSettingsController {
  constructor(
    private readonly products: ProductsService,
    private readonly replies: Replies,
  ) {}

  @Get('settings')
  async show(@InProduct() at: ProductPage, @Res() reply: FastifyReply): Promise<void> {
    const notice = await this.replies.notice(at.identity, `${at.base}/settings`);
    await this.replies.page(reply, 200, settingsPage(at, { ...at.product, ...rulesAsText(at.product.referralRules), milestones: milestonesAsText(at.product.milestones), questions: questionsAsText(at.product.questions), signupHoneypot: at.product.signupHoneypot ? 'on' : 'off' }, notice));
  }

  @Post('settings')
  async save(@InProduct() at: ProductPage, @Body() body: Record<string, unknown>, @Res() reply: FastifyReply): Promise<void> {
    const form = settingsForm(body);
    try {
      await this.products.update(at.product.id, parseForm(PRODUCT_SETTINGS, form));
    } catch (error) {
      const { status, words } = refusal(error);
      return this.replies.page(reply, status, settingsPage(at, form, { error: words }));
    }
    await this.replies.redirectWith(reply, `${at.base}/settings`, at.identity, { saved: true });
  }
}
