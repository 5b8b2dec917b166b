import { Body, Controller, Get, Param, Post, Res, UseFilters, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { ApiError } from '../../common/api-error';
import { NEW_LOGIN_HOOK } from '../../login-hooks/login-hooks.dto';
import { LoginHooksService } from '../../login-hooks/login-hooks.service';
import { DashboardGuard, LoginRedirect } from '../auth/dashboard.guard';
import { parseForm, text } from '../shared/forms';
import type { Notice } from '../auth/notice';
import { refusal } from '../shared/messages';
import { InProduct, ProductPage } from '../shared/product-page';
import { Replies } from '../shared/replies';
import { loginHooksPage, revokeLoginHookPage } from './pages';

/** Sign-up hooks of a product and mode, for Supabase Auth and Ory Kratos. */
@Controller('dashboard/:productId/:mode')
@UseGuards(DashboardGuard)
@UseFilters(LoginRedirect)
export class DashboardLoginHooksController {
  constructor(
    private readonly hooks: LoginHooksService,
    private readonly replies: Replies,
  ) {}

  @Get('sign-up-hooks')
  async list(@InProduct() at: ProductPage, @Res() reply: FastifyReply): Promise<void> {
    await this.hooksPage(reply, at, 200, await this.replies.notice(at.identity, `${at.base}/sign-up-hooks`));
  }

  /** The new hook's URL and secret are shown once, on the page this redirects to. */
  @Post('sign-up-hooks')
  async create(@InProduct() at: ProductPage, @Body() body: { provider?: unknown; failOpen?: unknown }, @Res() reply: FastifyReply): Promise<void> {
    try {
      const input = parseForm(NEW_LOGIN_HOOK, { provider: text(body?.provider), failOpen: text(body?.failOpen) === 'on' });
      const loginHook = await this.hooks.create(at.scope, input);
      await this.replies.redirectWith(reply, `${at.base}/sign-up-hooks`, at.identity, { loginHook });
    } catch (error) {
      const { status, words } = refusal(error);
      await this.hooksPage(reply, at, status, { refused: words });
    }
  }

  /** What revoking the hook stops; its button posts to revoke. */
  @Get('sign-up-hooks/:hookId/revoke')
  async confirmRevoke(@InProduct() at: ProductPage, @Param('hookId') hookId: string, @Res() reply: FastifyReply): Promise<void> {
    const hook = await this.hooks.inUse(at.scope, hookId);
    if (!hook) throw new ApiError('not_found', 'No such sign-up hook in use.');
    await this.replies.page(reply, 200, revokeLoginHookPage(at, { ...hook, url: this.hooks.urlOf(hook.provider, hook.id) }));
  }

  @Post('sign-up-hooks/:hookId/revoke')
  async revoke(@InProduct() at: ProductPage, @Param('hookId') hookId: string, @Res() reply: FastifyReply): Promise<void> {
    if (!(await this.hooks.revoke(at.scope, hookId))) throw new ApiError('not_found', 'No such sign-up hook in use.');
    await this.replies.redirect(reply, `${at.base}/sign-up-hooks`);
  }

  private async hooksPage(reply: FastifyReply, at: ProductPage, status: number, notice?: Notice): Promise<void> {
    const hooks = (await this.hooks.list(at.scope)).map((hook) => ({ ...hook, url: this.hooks.urlOf(hook.provider, hook.id) }));
    await this.replies.page(reply, status, loginHooksPage(at, hooks, notice));
  }
}
