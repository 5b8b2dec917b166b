import { CanActivate, createParamDecorator, ExecutionContext, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../common/api-error';
import { RateLimits } from '../common/rate-limits';
import type { KeyScope } from '../common/scope';
import { KeysService } from './keys.service';

const NO_RATE_LIMIT = 'waitlist:no-rate-limit';

/** For the one endpoint the spec answers without 429 (move-up). */
export const WithoutRateLimit = () => SetMetadata(NO_RATE_LIMIT, true);

type ScopedRequest = FastifyRequest & { keyScope?: KeyScope };

/**
 * Authorization: Bearer sk_… — a missing, unknown or revoked key is 401 unauthorized; then the key's
 * rate limit (RATE_LIMIT_API, shared by all replicas) applies.
 */
@Injectable()
export class SecretKeyGuard implements CanActivate {
  constructor(
    private readonly keys: KeysService,
    private readonly limits: RateLimits,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<ScopedRequest>();
    request.keyScope = await this.scopeOf(request, !this.reflector.get<boolean>(NO_RATE_LIMIT, context.getHandler()));
    return true;
  }

  /** The request's product and mode by its key (else 401), once its rate limit let it through (else 429). */
  async scopeOf(request: FastifyRequest, rateLimited = true): Promise<KeyScope> {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
    const scope = match ? await this.keys.authenticate(match[1], 'secret') : null;
    if (!scope) throw new ApiError('unauthorized', 'Send a valid secret key as Authorization: Bearer sk_….');
    if (rateLimited) await this.limits.apiRequestWith(scope.keyId);
    return scope;
  }
}

/** The product and mode of the request's secret key (set by SecretKeyGuard). */
export const Scope = createParamDecorator((_: unknown, context: ExecutionContext): KeyScope => {
  const scope = context.switchToHttp().getRequest<ScopedRequest>().keyScope;
  if (!scope) throw new Error('Scope used on a route without SecretKeyGuard');
  return scope;
});
