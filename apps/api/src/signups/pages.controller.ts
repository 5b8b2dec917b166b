import { Controller, Get, Header, HttpCode, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import { APP_CONFIG, AppConfig, attributionOfPage } from '@app/shared';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../common/api-error';
import { LeaderboardService } from '../leaderboard/leaderboard.service';
import { checkInboxPage, confirmPage, signupPage, unsubscribedPage, unsubscribePage } from './pages';
import { SignupsService } from './signups.service';

const HTML = 'text/html; charset=utf-8';

/**
 * Hosted pages (their security headers: common/security-headers.ts; the sign-up form may be framed,
 * confirm and unsubscribe pages never). GET only shows (mail scanners that open links change nothing); the page's button
 * POSTs to the same URL and only that acts, then redirects back to the GET.
 */
@Controller()
export class PagesController {
  constructor(
    private readonly signups: SignupsService,
    private readonly leaderboard: LeaderboardService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get('w/:key')
  @Header('Content-Type', HTML)
  async signupForm(@Param('key') key: string, @Query('ref') ref: unknown, @Req() request: FastifyRequest): Promise<string> {
    const { product } = await this.notFoundIfUnknown(key);
    // This page is where the person landed; its Referer, where they came from.
    const attribution = attributionOfPage(`${this.config.PUBLIC_BASE_URL}${request.url}`, request.headers.referer);
    return signupPage(product.name, key, typeof ref === 'string' ? ref.slice(0, 100) : undefined, product.questions, attribution);
  }

  @Get('w/:key/sent')
  @Header('Content-Type', HTML)
  async checkInbox(@Param('key') key: string): Promise<string> {
    const { product, scope } = await this.notFoundIfUnknown(key);
    return checkInboxPage(product.name, await this.leaderboard.maskedBoard(scope));
  }

  @Get('confirm/:token')
  @Header('Content-Type', HTML)
  @Header('Cache-Control', 'no-store')
  async confirmForm(@Param('token') token: string): Promise<string> {
    return confirmPage(await this.signups.confirmStatus(token));
  }

  @Post('confirm/:token')
  async confirm(@Param('token') token: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.signups.confirm(token, request.ip);
    await reply.redirect(`/confirm/${encodeURIComponent(token)}`, 303);
  }

  @Get('unsubscribe/:token')
  @Header('Content-Type', HTML)
  @Header('Cache-Control', 'no-store')
  async unsubscribeForm(@Param('token') token: string): Promise<string> {
    return unsubscribePage(await this.signups.unsubscribeTarget(token));
  }

  /** The page's button and RFC 8058 one-click unsubscribe (List-Unsubscribe=One-Click) both land here. */
  @Post('unsubscribe/:token')
  @HttpCode(200)
  @Header('Content-Type', HTML)
  async unsubscribe(@Param('token') token: string): Promise<string> {
    await this.signups.unsubscribe(token);
    return unsubscribedPage();
  }

  private async notFoundIfUnknown(key: string) {
    try {
      return await this.signups.productOfPublishableKey(key);
    } catch (error) {
      if (error instanceof ApiError) throw new ApiError('not_found', 'This sign-up page does not exist.');
      throw error;
    }
  }
}
