import { Controller, Get, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { Entry } from '@app/shared';
import type { KeyScope } from '../common/scope';
import { JsonBody, Query } from '../common/validation';
import { Scope, SecretKeyGuard, WithoutRateLimit } from '../keys/secret-key.guard';
import { ENTRY_LIST_QUERY, EntryListQuery } from '../entries/entries.dto';
import { MOVE_UP, PlaceHistory, Standing } from './line.dto';
import { LineService } from './line.service';
import { PlaceHistoryService } from './place-history';

@Controller('api/v1/entries')
@UseGuards(SecretKeyGuard)
export class LineController {
  constructor(
    private readonly line: LineService,
    private readonly history: PlaceHistoryService,
  ) {}

  @Get(':id/place')
  place(@Scope() scope: KeyScope, @Param('id') id: string): Promise<Standing> {
    return this.line.standing(scope, id);
  }

  @Get(':id/history')
  placeHistory(@Scope() scope: KeyScope, @Param('id') id: string, @Query(ENTRY_LIST_QUERY) query: EntryListQuery): Promise<PlaceHistory> {
    return this.history.list(scope, id, query);
  }

  @Post(':id/move-up')
  @HttpCode(200)
  @WithoutRateLimit()
  moveUp(@Scope() scope: KeyScope, @Param('id') id: string, @JsonBody(MOVE_UP) body: { places: number }): Promise<Entry> {
    return this.line.moveUp(scope, id, body.places);
  }
}
