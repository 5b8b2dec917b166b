import { Controller, Delete, Get, HttpCode, Param, UseGuards } from '@nestjs/common';
import { Entry } from '@app/shared';
import type { KeyScope } from '../common/scope';
import { Scope, SecretKeyGuard } from '../keys/secret-key.guard';
import { Query } from '../common/validation';
import { EntryPage, LIST_QUERY } from './entries.dto';
import { EntriesService, ListQuery } from './entries.service';

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
