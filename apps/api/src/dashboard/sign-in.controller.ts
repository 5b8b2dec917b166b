import { Body, Controller, Get, Inject, Post, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { APP_CONFIG, AppConfig, newToken } from '@app/shared';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../common/api-error';
import { DashboardAuthService } from './dashboard-auth.service';
import { DashboardGuard, LoginRedirect, readCookie, SESSION_COOKIE } from './dashboard.guard';
import { text } from './forms';
import { refusal } from './messages';
import { Replies } from './replies';
import { loginPage } from './views/sign-in';

const LOGIN_COOKIE = 'wl_login';

/** Signing in and out. The login is the one dashboard page without a session, so the guard is on sign-out alone. */
@Controller('dashboard')
@UseFilters(LoginRedirect)
export class DashboardSignInController {
  constructor(
    private readonly auth: DashboardAuthService,
    private readonly replies: Replies,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
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
      if (!DashboardAuthService.csrfMatches(readCookie(request, LOGIN_COOKIE) ?? '', body?._csrf)) {
        throw new ApiError('forbidden', 'This form has expired or did not come from the dashboard; sign in again.');
      }
      const token = await this.auth.logIn(email, text(body?.password), request.ip);
      void reply.header('Set-Cookie', [
        `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Lax; Max-Age=43200${this.secure}`,
        `${LOGIN_COOKIE}=; Path=/dashboard/login; HttpOnly; SameSite=Strict; Max-Age=0${this.secure}`,
      ]);
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
    await this.auth.logOut(readCookie(request, SESSION_COOKIE) ?? '');
    void reply.header('Set-Cookie', `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${this.secure}`);
    await this.replies.redirect(reply, '/dashboard/login');
  }

  private async loginPage(request: FastifyRequest, reply: FastifyReply, status: number, error?: string, email?: string): Promise<void> {
    const token = readCookie(request, LOGIN_COOKIE) || newToken();
    void reply.header('Set-Cookie', `${LOGIN_COOKIE}=${token}; Path=/dashboard/login; HttpOnly; SameSite=Strict${this.secure}`);
    await this.replies.page(reply, status, loginPage(token, error, email));
  }

  /** Cookies are Secure when the dashboard is served over https. */
  private get secure(): string {
    return this.config.PUBLIC_BASE_URL.startsWith('https:') ? '; Secure' : '';
  }
}
