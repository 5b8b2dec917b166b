import { Body, Controller, Get, Header, Headers, HttpCode, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import { APP_CONFIG, AppConfig, attributionOfPage, translator } from '@app/shared';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { join } from 'node:path';
import { z } from 'zod';
import { browserScript } from '../challenges/browser-scripts';
import { ApiError } from '../common/api-error';
import { browserLanguage } from '../common/html';
import { withOwnScript } from '../common/security-headers';
import { parseInput } from '../common/validation';
import { LeaderboardService } from '../leaderboard/leaderboard.service';
import { EntryStatus } from './entry-status.service';
import { checkInboxPage, confirmPage, signupPage, unsubscribedPage, unsubscribePage } from './pages';
import { SignupSignals } from './signup-signals';
import { LOCALE_TAG } from './signups.dto';
import { SignupsService } from './signups.service';

const HTML = 'text/html; charset=utf-8';
const LANGUAGE_SWITCH = z.object({ locale: LOCALE_TAG });
const SHARE_SCRIPT = browserScript(join(__dirname, 'share.browser.js'));

/**
 * Hosted pages (their security headers: common/security-headers.ts; the sign-up form may be framed,
 * confirm and unsubscribe pages never). GET only shows (mail scanners that open links change nothing); the page's button
 * POSTs to the same URL and only that acts, then redirects back to the GET. A page about an entry is
 * in the entry's language; the form and its answer, before there is one, in the browser's, else the
 * product's default.
 */
@Controller()
export class PagesController {
  constructor(
    private readonly signups: SignupsService,
    private readonly status: EntryStatus,
    private readonly leaderboard: LeaderboardService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly signals: SignupSignals,
  ) {}

  @Get('w/:key')
  @Header('Content-Type', HTML)
  async signupForm(@Param('key') key: string, @Query('ref') ref: unknown, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    const { product, scope } = await this.notFoundIfUnknown(key);
    if (product.challengeMode !== 'off') void reply.header('content-security-policy', withOwnScript(String(reply.getHeader('content-security-policy'))));
    // This page is where the person landed; its Referer, where they came from.
    const attribution = attributionOfPage(`${this.config.PUBLIC_BASE_URL}${request.url}`, request.headers.referer);
    const t = browserLanguage(product, request.headers['accept-language']);
    const signals = this.signals.forForm(scope, product);
    return signupPage(t, product.name, key, typeof ref === 'string' ? ref.slice(0, 100) : undefined, product.questions, attribution, signals, product.challengeMode);
  }

  @Get('w/:key/sent')
  @Header('Content-Type', HTML)
  async checkInbox(@Param('key') key: string, @Headers('accept-language') accepted?: string): Promise<string> {
    const { product, scope } = await this.notFoundIfUnknown(key);
    return checkInboxPage(browserLanguage(product, accepted), product.name, await this.leaderboard.maskedBoard(scope));
  }

  @Get('confirm/:token')
  @Header('Content-Type', HTML)
  @Header('Cache-Control', 'no-store')
  async confirmForm(@Param('token') token: string, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    const status = await this.status.confirmStatus(token);
    if (status.state === 'confirmed' && status.referralLink) void reply.header('content-security-policy', withOwnScript(String(reply.getHeader('content-security-policy')), false));
    return confirmPage(translator(status.locale), status, token);
  }

  /** The status page's copy and share buttons (pages.ts `referral`). */
  @Get('share.js')
  shareScript(@Res() reply: FastifyReply): void {
    void reply.headers({ 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'public, max-age=300' }).send(SHARE_SCRIPT);
  }

  @Post('confirm/:token')
  async confirm(@Param('token') token: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.signups.confirm(token, request.ip);
    await reply.redirect(`/confirm/${encodeURIComponent(token)}`, 303);
  }

  /** The status page's language switch: the entry's pages and mails from now on. */
  @Post('confirm/:token/language')
  async changeLanguage(@Param('token') token: string, @Body() body: unknown, @Res() reply: FastifyReply): Promise<void> {
    await this.status.changeLocale(token, parseInput(LANGUAGE_SWITCH, body, 'form').locale);
    await reply.redirect(`/confirm/${encodeURIComponent(token)}`, 303);
  }

  @Get('unsubscribe/:token')
  @Header('Content-Type', HTML)
  @Header('Cache-Control', 'no-store')
  async unsubscribeForm(@Param('token') token: string): Promise<string> {
    const { productName, locale } = await this.status.unsubscribeTarget(token);
    return unsubscribePage(translator(locale), productName);
  }

  /** The page's button and RFC 8058 one-click unsubscribe (List-Unsubscribe=One-Click) both land here. */
  @Post('unsubscribe/:token')
  @HttpCode(200)
  @Header('Content-Type', HTML)
  async unsubscribe(@Param('token') token: string): Promise<string> {
    return unsubscribedPage(translator(await this.signups.unsubscribe(token)));
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
