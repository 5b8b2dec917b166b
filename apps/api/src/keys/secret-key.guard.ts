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
    const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
    const scope = match ? await this.keys.authenticate(match[1], 'secret') : null;
    if (!scope) throw new ApiError('unauthorized', 'Send a valid secret key as Authorization: Bearer sk_….');
    request.keyScope = scope;
    if (!this.reflector.get<boolean>(NO_RATE_LIMIT, context.getHandler())) await this.limits.apiRequestWith(scope.keyId);
    return true;
  }
}

/** The product and mode of the request's secret key (set by SecretKeyGuard). */
export const Scope = createParamDecorator((_: unknown, context: ExecutionContext): KeyScope => {
  const scope = context.switchToHttp().getRequest<ScopedRequest>().keyScope;
  if (!scope) throw new Error('Scope used on a route without SecretKeyGuard');
  return scope;
});
