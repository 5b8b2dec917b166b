import { Body, Controller, Get, Post, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { newToken } from '@app/shared';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../common/api-error';
import { DashboardCookies, sessionToken } from '../auth/cookies';
import { DashboardAuthService } from '../auth/dashboard-auth.service';
import { DashboardGuard, LoginRedirect } from '../auth/dashboard.guard';
import { text } from '../shared/forms';
import { refusal } from '../shared/messages';
import { Replies } from '../shared/replies';
import { loginPage } from './pages';

/** Signing in and out. The login is the one dashboard page without a session, so the guard is on sign-out alone. */
@Controller('dashboard')
@UseFilters(LoginRedirect)
export class DashboardSignInController {
  constructor(
    private readonly auth: DashboardAuthService,
    private readonly cookies: DashboardCookies,
    private readonly replies: Replies,
  ) {}

  /** The login form carries a token that must match a SameSite=Strict cookie, so no other site can post it (login CSRF). */
  @Get('login')
  async form(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.loginPage(request, reply, 200);
  }

  @Post('login')
  async logIn(@Req() request: FastifyRequest, @Body() body: { email?: unknown; password?: unknown; _csrf?: unknown }, @Res() reply: FastifyReply): Promise<void> {
    const email = text(body?.email);
    try {
      if (!DashboardAuthService.csrfMatches(this.cookies.loginToken(request) ?? '', body?._csrf)) {
        throw new ApiError('forbidden', 'This form has expired or did not come from the dashboard; sign in again.');
      }
      const token = await this.auth.logIn(email, text(body?.password), request.ip);
      this.cookies.startSession(reply, token);
      await this.replies.redirect(reply, '/dashboard');
    } catch (error) {
      const { status, words, retryAfterSeconds } = refusal(error);
      if (retryAfterSeconds) void reply.header('Retry-After', String(retryAfterSeconds));
      await this.loginPage(request, reply, status, words, email);
    }
  }

  @Post('logout')
  @UseGuards(DashboardGuard)
  async logOut(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.auth.logOut(sessionToken(request) ?? '');
    this.cookies.endSession(reply);
    await this.replies.redirect(reply, '/dashboard/login');
  }

  private async loginPage(request: FastifyRequest, reply: FastifyReply, status: number, error?: string, email?: string): Promise<void> {
    const token = this.cookies.loginToken(request) ?? newToken();
    this.cookies.setLoginToken(reply, token);
    await this.replies.page(reply, status, loginPage(token, error, email));
  }
}
