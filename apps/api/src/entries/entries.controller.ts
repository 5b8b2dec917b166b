import { Controller, Delete, Get, HttpCode, Param, UseGuards } from '@nestjs/common';
import { Entry } from '@app/shared';
import type { KeyScope } from '../common/scope';
import { Scope, SecretKeyGuard } from '../keys/secret-key.guard';
import { EntriesService } from './entries.service';

/** An entry by id; the list is a plain Fastify route (entry-list.ts). */
@Controller('api/v1/entries')
@UseGuards(SecretKeyGuard)
export class EntriesController {
  constructor(private readonly entries: EntriesService) {}

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
