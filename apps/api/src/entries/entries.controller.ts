import { Controller, Delete, Get, HttpCode, Param, Post, UseGuards, UseInterceptors } from '@nestjs/common';
import { Entry, ENTRY_STATES, normalizeEmail } from '@app/shared';
import { z } from 'zod';
import { KeyScope } from '../auth/keys.service';
import { Scope, SecretKeyGuard, WithoutRateLimit } from '../auth/secret-key.guard';
import { ApiError } from '../common/api-error';
import { IdempotencyInterceptor } from '../common/idempotency.interceptor';
import { JsonBody, Query, single } from '../common/validation';
import { InvitationsService, InviteNextResult } from '../invitations/invitations.service';
import { EntriesService, EntryPage, ListQuery } from './entries.service';

const wholeNumber = (min: number, max: number) =>
  z.number({ message: `expected a whole number from ${min} to ${max}` }).int(`expected a whole number from ${min} to ${max}`).min(min, `expected a whole number from ${min} to ${max}`).max(max, `expected a whole number from ${min} to ${max}`);

export const LIST_QUERY = z.object({
  state: single.pipe(z.enum(ENTRY_STATES, { message: 'expected pending, confirmed, invited or redeemed' })).optional(),
  email: single
    .transform((text) => {
      const email = normalizeEmail(text);
      if (!email) throw new ApiError('invalid_email', 'The email query parameter is not a valid email address.', { param: 'email' });
      return email;
    })
    .optional(),
  limit: single
    .regex(/^\d{1,3}$/, 'expected a whole number from 1 to 100')
    .transform(Number)
    .pipe(wholeNumber(1, 100))
    .default(20),
  // Any cursor the API did not issue, however long, is invalid_cursor (the codec checks its HMAC).
  cursor: single.optional(),
});

const INVITE_NEXT = z.object({ count: wholeNumber(1, 1000) });
const MOVE_UP = z.object({ places: wholeNumber(1, 1_000_000) });

@Controller('api/v1/entries')
@UseGuards(SecretKeyGuard)
export class EntriesController {
  constructor(
    private readonly entries: EntriesService,
    private readonly invitations: InvitationsService,
  ) {}

  @Get()
  list(@Scope() scope: KeyScope, @Query(LIST_QUERY) query: ListQuery): Promise<EntryPage> {
    return this.entries.list(scope, query);
  }

  @Post('invite-next')
  @HttpCode(200)
  @UseInterceptors(IdempotencyInterceptor)
  inviteNext(@Scope() scope: KeyScope, @JsonBody(INVITE_NEXT) body: { count: number }): Promise<InviteNextResult> {
    return this.invitations.inviteNext(scope, body.count);
  }

  @Get(':id')
  get(@Scope() scope: KeyScope, @Param('id') id: string): Promise<Entry> {
    return this.entries.get(scope, id);
  }

  @Delete(':id')
  @HttpCode(204)
  delete(@Scope() scope: KeyScope, @Param('id') id: string): Promise<void> {
    return this.entries.delete(scope, id);
  }

  @Post(':id/invite')
  @HttpCode(200)
  @UseInterceptors(IdempotencyInterceptor)
  invite(@Scope() scope: KeyScope, @Param('id') id: string): Promise<Entry> {
    return this.invitations.invite(scope, id);
  }

  @Post(':id/reinvite')
  @HttpCode(200)
  @UseInterceptors(IdempotencyInterceptor)
  reinvite(@Scope() scope: KeyScope, @Param('id') id: string): Promise<Entry> {
    return this.invitations.reinvite(scope, id);
  }

  @Post(':id/move-up')
  @HttpCode(200)
  @WithoutRateLimit()
  moveUp(@Scope() scope: KeyScope, @Param('id') id: string, @JsonBody(MOVE_UP) body: { places: number }): Promise<Entry> {
    return this.entries.moveUp(scope, id, body.places);
  }
}
