import { Controller, Get, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { Entry } from '@app/shared';
import type { KeyScope } from '../common/scope';
import { JsonBody } from '../common/validation';
import { Scope, SecretKeyGuard, WithoutRateLimit } from '../keys/secret-key.guard';
import { MOVE_UP, Standing } from './line.dto';
import { LineService } from './line.service';

@Controller('api/v1/entries')
@UseGuards(SecretKeyGuard)
export class LineController {
  constructor(private readonly line: LineService) {}

  @Get(':id/place')
  place(@Scope() scope: KeyScope, @Param('id') id: string): Promise<Standing> {
    return this.line.standing(scope, id);
  }

  @Post(':id/move-up')
  @HttpCode(200)
  @WithoutRateLimit()
  moveUp(@Scope() scope: KeyScope, @Param('id') id: string, @JsonBody(MOVE_UP) body: { places: number }): Promise<Entry> {
    return this.line.moveUp(scope, id, body.places);
  }
}
