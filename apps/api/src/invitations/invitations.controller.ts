import { Controller, HttpCode, Param, Post, Req, UseGuards } from '@nestjs/common';
import { Entry } from '@app/shared';
import type { FastifyRequest } from 'fastify';
import type { KeyScope } from '../common/scope';
import { Scope, SecretKeyGuard } from '../keys/secret-key.guard';
import { Idempotent } from '../common/idempotency.interceptor';
import { JsonBody } from '../common/validation';
import { CodeCheck, INVITE_NEXT, InviteNextResult, TOKEN } from './invitations.dto';
import { InvitationsService } from './invitations.service';
import { InviteCodesService } from './invite-codes.service';

@Controller('api/v1')
@UseGuards(SecretKeyGuard)
export class InvitationsController {
  constructor(
    private readonly invitations: InvitationsService,
    private readonly codes: InviteCodesService,
  ) {}

  @Post('entries/invite-next')
  @HttpCode(200)
  @Idempotent(INVITE_NEXT)
  inviteNext(@Scope() scope: KeyScope, @JsonBody(INVITE_NEXT) body: { count: number }, @Req() request: FastifyRequest): Promise<InviteNextResult> {
    return this.invitations.inviteNext(scope, body.count, request.id);
  }

  @Post('entries/:id/invite')
  @HttpCode(200)
  @Idempotent()
  invite(@Scope() scope: KeyScope, @Param('id') id: string, @Req() request: FastifyRequest): Promise<Entry> {
    return this.invitations.invite(scope, id, request.id);
  }

  @Post('entries/:id/reinvite')
  @HttpCode(200)
  @Idempotent()
  reinvite(@Scope() scope: KeyScope, @Param('id') id: string, @Req() request: FastifyRequest): Promise<Entry> {
    return this.invitations.reinvite(scope, id, request.id);
  }

  @Post('invites/redeem')
  @HttpCode(200)
  @Idempotent(TOKEN)
  redeem(@Scope() scope: KeyScope, @JsonBody(TOKEN) body: { token: string }): Promise<CodeCheck> {
    return this.codes.redeem(scope, body.token);
  }
}
