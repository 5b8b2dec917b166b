import { Controller, Delete, Get, HttpCode, Param, UseGuards } from '@nestjs/common';
import { Entry, ENTRY_STATES, normalizeEmail } from '@app/shared';
import { z } from 'zod';
import type { KeyScope } from '../common/scope';
import { Scope, SecretKeyGuard } from '../keys/secret-key.guard';
import { ApiError } from '../common/api-error';
import { Query, single, wholeNumber } from '../common/validation';
import { EntriesService, EntryPage, ListQuery } from './entries.service';

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

@Controller('api/v1/entries')
@UseGuards(SecretKeyGuard)
export class EntriesController {
  constructor(private readonly entries: EntriesService) {}

  @Get()
  list(@Scope() scope: KeyScope, @Query(LIST_QUERY) query: ListQuery): Promise<EntryPage> {
    return this.entries.list(scope, query);
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
}
