import { Controller, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { Entry } from '@app/shared';
import { z } from 'zod';
import type { KeyScope } from '../common/scope';
import { JsonBody, wholeNumber } from '../common/validation';
import { Scope, SecretKeyGuard, WithoutRateLimit } from '../keys/secret-key.guard';
import { LineService } from './line.service';

export const MOVE_UP = z.object({ places: wholeNumber(1, 1_000_000) });

@Controller('api/v1/entries')
@UseGuards(SecretKeyGuard)
export class LineController {
  constructor(private readonly line: LineService) {}

  @Post(':id/move-up')
  @HttpCode(200)
  @WithoutRateLimit()
  moveUp(@Scope() scope: KeyScope, @Param('id') id: string, @JsonBody(MOVE_UP) body: { places: number }): Promise<Entry> {
    return this.line.moveUp(scope, id, body.places);
  }
}
