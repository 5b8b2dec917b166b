import { Controller, Get, Inject, Param, Post, Res, UseFilters, UseGuards } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/shared';
import type { FastifyReply } from 'fastify';
import { ApiError } from '../../common/api-error';
import { KeysService } from '../../keys/keys.service';
import { DashboardGuard, LoginRedirect } from '../auth/dashboard.guard';
import { InProduct, ProductPage } from '../shared/product-page';
import { Replies } from '../shared/replies';
import { keysPage, revokeKeyPage } from './pages';

/** API keys of a product and mode. */
@Controller('dashboard/:productId/:mode')
@UseGuards(DashboardGuard)
@UseFilters(LoginRedirect)
export class DashboardKeysController {
  constructor(
    private readonly keys: KeysService,
    private readonly replies: Replies,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get('keys')
  async list(@InProduct() at: ProductPage, @Res() reply: FastifyReply): Promise<void> {
    const notice = await this.replies.notice(at.identity, `${at.base}/keys`);
    await this.replies.page(reply, 200, keysPage(at, await this.keys.list(at.product.id, at.mode), this.config.PUBLIC_BASE_URL, notice));
  }

  /** The new secret is shown once, on the page this redirects to; only its hash is kept with the key. */
  @Post('keys')
  async create(@InProduct() at: ProductPage, @Res() reply: FastifyReply): Promise<void> {
    const keyPair = await this.keys.createPair(at.product.id, at.mode);
    await this.replies.redirectWith(reply, `${at.base}/keys`, at.identity, { keyPair });
  }

  /** What revoking the key stops; its button posts to revoke. */
  @Get('keys/:keyId/revoke')
  async confirmRevoke(@InProduct() at: ProductPage, @Param('keyId') keyId: string, @Res() reply: FastifyReply): Promise<void> {
    const found = await this.keys.inUse(at.scope, keyId);
    if (!found) throw new ApiError('not_found', 'No such key in use.');
    await this.replies.page(reply, 200, revokeKeyPage(at, found.key, found.pairedWith));
  }

  @Post('keys/:keyId/revoke')
  async revoke(@InProduct() at: ProductPage, @Param('keyId') keyId: string, @Res() reply: FastifyReply): Promise<void> {
    const found = await this.keys.inUse(at.scope, keyId);
    if (!found || !(await this.keys.revokeById(at.scope, keyId))) throw new ApiError('not_found', 'No such key in use.');
    await this.replies.redirectWith(reply, `${at.base}/keys`, at.identity, { done: `The key ${found.key.hint} is revoked: it no longer works.` });
  }
}
