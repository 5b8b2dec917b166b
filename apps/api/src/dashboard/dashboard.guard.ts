import { ArgumentsHost, CanActivate, Catch, createParamDecorator, ExceptionFilter, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../common/api-error';
import { DashboardAuthService, DashboardIdentity } from './dashboard-auth.service';

export const SESSION_COOKIE = 'wl_session';

/** Thrown where a page needs a signed-in user; LoginRedirect turns it into a redirect to the login. */
export class LoginRequired extends Error {}

/** The dashboard's pages send anyone not signed in to the login. */
@Catch(LoginRequired)
export class LoginRedirect implements ExceptionFilter {
  catch(_error: LoginRequired, host: ArgumentsHost): void {
    void host.switchToHttp().getResponse<FastifyReply>().redirect('/dashboard/login', 303);
  }
}

export type DashboardRequest = FastifyRequest & { identity?: DashboardIdentity };

/** A cookie of ours; their values are 43-character base64url tokens, so anything else is as good as none. */
export function readCookie(request: FastifyRequest, name: string): string | undefined {
  for (const part of String(request.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return /^[A-Za-z0-9_-]{43}$/.test(value.join('=')) ? value.join('=') : undefined;
  }
  return undefined;
}

/**
 * Every dashboard page but the login: a valid session, and the CSRF token on every POST. Which
 * product a page may show is for InProduct to decide, once the guard has told who is asking.
 */
@Injectable()
export class DashboardGuard implements CanActivate {
  constructor(private readonly auth: DashboardAuthService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<DashboardRequest>();
    const identity = await this.auth.identify(readCookie(request, SESSION_COOKIE));
    if (!identity) throw new LoginRequired();
    if (request.method === 'POST' && !DashboardAuthService.csrfMatches(identity.csrfToken, (request.body as { _csrf?: unknown } | undefined)?._csrf)) {
      throw new ApiError('forbidden', 'This form has expired or did not come from the dashboard; reload the page and try again.');
    }
    request.identity = identity;
    return true;
  }
}

export const Identity = createParamDecorator((_: unknown, context: ExecutionContext): DashboardIdentity => {
  const identity = context.switchToHttp().getRequest<DashboardRequest>().identity;
  if (!identity) throw new LoginRequired();
  return identity;
});
