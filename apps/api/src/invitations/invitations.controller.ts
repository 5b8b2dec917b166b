import { Controller, Get, HttpCode, Param, Post, UseGuards, UseInterceptors } from '@nestjs/common';
import { Entry, normalizeEmail } from '@app/shared';
import { z } from 'zod';
import type { KeyScope } from '../common/scope';
import { Scope, SecretKeyGuard } from '../keys/secret-key.guard';
import { ApiError } from '../common/api-error';
import { IdempotencyInterceptor } from '../common/idempotency.interceptor';
import { JsonBody, Query } from '../common/validation';
import { INVITE_NEXT } from './invitations.dto';
import { CodeCheck, InvitationsService, InviteNextResult } from './invitations.service';

const TOKEN = z.object({ token: z.string({ message: 'expected the invite code as a string' }).min(1).max(512) });

/** The invited check knows one error: whatever is wrong with the address is invalid_email. */
const emailOnly = z.object({ email: z.unknown().optional() }).transform(({ email }) => {
  const normalized = normalizeEmail(email);
  if (!normalized) throw new ApiError('invalid_email', 'email must be a valid email address.', { param: 'email' });
  return normalized;
});

@Controller('api/v1')
@UseGuards(SecretKeyGuard)
export class InvitationsController {
  constructor(private readonly invitations: InvitationsService) {}

  @Post('entries/invite-next')
  @HttpCode(200)
  @UseInterceptors(IdempotencyInterceptor)
  inviteNext(@Scope() scope: KeyScope, @JsonBody(INVITE_NEXT) body: { count: number }): Promise<InviteNextResult> {
    return this.invitations.inviteNext(scope, body.count);
  }

  @Post('entries/:id/invite')
  @HttpCode(200)
  @UseInterceptors(IdempotencyInterceptor)
  invite(@Scope() scope: KeyScope, @Param('id') id: string): Promise<Entry> {
    return this.invitations.invite(scope, id);
  }

  @Post('entries/:id/reinvite')
  @HttpCode(200)
  @UseInterceptors(IdempotencyInterceptor)
  reinvite(@Scope() scope: KeyScope, @Param('id') id: string): Promise<Entry> {
    return this.invitations.reinvite(scope, id);
  }

  @Post('invited')
  @HttpCode(200)
  invited(@Scope() scope: KeyScope, @JsonBody(emailOnly) email: string): Promise<{ invited: boolean }> {
    return this.invitations.isInvited(scope, email);
  }

  @Post('invites/verify')
  @HttpCode(200)
  verify(@Scope() scope: KeyScope, @JsonBody(TOKEN) body: { token: string }): Promise<CodeCheck> {
    return this.invitations.verify(scope, body.token);
  }

  @Post('invites/redeem')
  @HttpCode(200)
  @UseInterceptors(IdempotencyInterceptor)
  redeem(@Scope() scope: KeyScope, @JsonBody(TOKEN) body: { token: string }): Promise<CodeCheck> {
    return this.invitations.redeem(scope, body.token);
  }

  /** The older form, kept for existing callers; POST keeps the address out of access logs. */
  @Get('invited')
  invitedByQuery(@Scope() scope: KeyScope, @Query(emailOnly) email: string): Promise<{ invited: boolean }> {
    return this.invitations.isInvited(scope, email);
  }
}
