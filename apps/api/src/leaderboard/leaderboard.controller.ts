import { Controller, Get, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { parseInput } from '../common/validation';
import { LEADERBOARD_QUERY, Leaderboard } from './leaderboard.dto';
import { LeaderboardService } from './leaderboard.service';

/** GET /public/v1/leaderboard?key=pk_…: read by a script on any site (the key is public, the addresses masked). */
@Controller('public/v1/leaderboard')
export class LeaderboardController {
  constructor(private readonly leaderboard: LeaderboardService) {}

  @Get()
  async show(@Query() query: unknown, @Res({ passthrough: true }) reply: FastifyReply): Promise<Leaderboard> {
    // Set first, so that refusals are readable by the script too.
    void reply.header('access-control-allow-origin', '*');
    return this.leaderboard.ofPublishableKey(parseInput(LEADERBOARD_QUERY, query, 'query').key);
  }
}
