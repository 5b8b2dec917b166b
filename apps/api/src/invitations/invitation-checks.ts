import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { jsonBody, query } from '../common/validation';
import { SecretKeyGuard } from '../keys/secret-key.guard';
import { CodeCheck, EMAIL_ONLY, InvitedAnswer, TOKEN } from './invitations.dto';
import { InviteCodesService } from './invite-codes.service';

/**
 * The invited check and verify, which login systems call on every sign-up, as plain Fastify routes:
 * Nest's route pipeline (execution context, guards, pipes, interceptors, its reply) cost more than the
 * read itself. The same key check, rate limit, validation and services as every /api/v1 route, in the
 * same order; errors go through the same global filter (Nest installs it as Fastify's error handler).
 */
export function registerInvitationChecks(app: NestFastifyApplication): void {
  const fastify = app.getHttpAdapter().getInstance();
  const keys = app.get(SecretKeyGuard);
  const codes = app.get(InviteCodesService);

  fastify.post('/api/v1/invited', async (request): Promise<InvitedAnswer> => {
    const scope = await keys.scopeOf(request);
    return codes.isInvited(scope, jsonBody(EMAIL_ONLY, request));
  });
  // The older form, kept for existing callers; POST keeps the address out of access logs.
  fastify.get('/api/v1/invited', async (request): Promise<InvitedAnswer> => {
    const scope = await keys.scopeOf(request);
    return codes.isInvited(scope, query(EMAIL_ONLY, request));
  });
  fastify.post('/api/v1/invites/verify', async (request): Promise<CodeCheck> => {
    const scope = await keys.scopeOf(request);
    return codes.verify(scope, jsonBody(TOKEN, request).token);
  });
}
