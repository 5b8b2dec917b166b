import { CanActivate, createParamDecorator, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../common/api-error';
import { KeyScope, KeysService } from './keys.service';

type ScopedRequest = FastifyRequest & { keyScope?: KeyScope };

/** Authorization: Bearer sk_… — a missing, unknown or revoked key is 401 unauthorized. */
@Injectable()
export class SecretKeyGuard implements CanActivate {
  constructor(private readonly keys: KeysService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<ScopedRequest>();
    const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
    const scope = match ? await this.keys.authenticate(match[1], 'secret') : null;
    if (!scope) throw new ApiError('unauthorized', 'Send a valid secret key as Authorization: Bearer sk_….');
    request.keyScope = scope;
    return true;
  }
}

/** The product and mode of the request's secret key (set by SecretKeyGuard). */
export const Scope = createParamDecorator((_: unknown, context: ExecutionContext): KeyScope => {
  const scope = context.switchToHttp().getRequest<ScopedRequest>().keyScope;
  if (!scope) throw new Error('Scope used on a route without SecretKeyGuard');
  return scope;
});
