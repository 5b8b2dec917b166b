import { ArgumentsHost, CanActivate, Catch, createParamDecorator, ExceptionFilter, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { ApiError } from '../../common/api-error';
import { sessionToken } from './cookies';
import { DashboardAuthService, DashboardIdentity } from './dashboard-auth.service';

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

/**
 * Every dashboard page but the login: a valid session, and the CSRF token on every POST. Which
 * product a page may show is for InProduct to decide, once the guard has told who is asking.
 */
@Injectable()
export class DashboardGuard implements CanActivate {
  constructor(private readonly auth: DashboardAuthService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<DashboardRequest>();
    const identity = await this.auth.identify(sessionToken(request));
    if (!identity) throw new LoginRequired();
    // An upload's body is a stream read by its route: its form carries the token in the action's query.
    const form = request.body instanceof Readable ? request.query : request.body;
    if (request.method === 'POST' && !DashboardAuthService.csrfMatches(identity.csrfToken, (form as { _csrf?: unknown } | undefined)?._csrf)) {
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
