import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/shared';
import type { CookieSerializeOptions } from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SESSION_MS } from './dashboard-auth.service';

const SESSION = 'wl_session';
const LOGIN = 'wl_login';

/** Our cookies hold 43-character base64url tokens, so anything else is as good as none. */
function tokenIn(request: FastifyRequest, name: string): string | undefined {
  const value = request.cookies[name];
  return value !== undefined && /^[A-Za-z0-9_-]{43}$/.test(value) ? value : undefined;
}

/** The session's token, if the request carries a well-formed one. */
export const sessionToken = (request: FastifyRequest): string | undefined => tokenIn(request, SESSION);

/**
 * The dashboard's two cookies, both HttpOnly and Secure when the dashboard is served over https: the
 * session (SameSite=Lax, so that a link from elsewhere opens the page signed in) and the login form's
 * token (SameSite=Strict, and only sent to the login).
 */
@Injectable()
export class DashboardCookies {
  private readonly session: CookieSerializeOptions;
  private readonly login: CookieSerializeOptions;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    const secure = config.PUBLIC_BASE_URL.startsWith('https:');
    this.session = { path: '/', httpOnly: true, sameSite: 'lax', secure };
    this.login = { path: '/dashboard/login', httpOnly: true, sameSite: 'strict', secure };
  }

  /** Signs in: the session's cookie for as long as the session lasts; the login form's token is done with. */
  startSession(reply: FastifyReply, token: string): void {
    void reply.setCookie(SESSION, token, { ...this.session, maxAge: SESSION_MS / 1000 });
    void reply.clearCookie(LOGIN, this.login);
  }

  endSession(reply: FastifyReply): void {
    void reply.clearCookie(SESSION, this.session);
  }

  loginToken(request: FastifyRequest): string | undefined {
    return tokenIn(request, LOGIN);
  }

  /** The login form's token, for as long as the browser runs. */
  setLoginToken(reply: FastifyReply, token: string): void {
    void reply.setCookie(LOGIN, token, this.login);
  }
}
