import { Controller, Get, Header, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { join } from 'node:path';
import { parseInput } from '../common/validation';
import { withSolver } from './browser-scripts';
import { CHALLENGE_QUERY, Challenge } from './challenges.dto';
import { ChallengesService } from './challenges.service';

const HOSTED_FORM_SCRIPT = withSolver(join(__dirname, 'challenge.browser.js'));

/** A challenge for any page's sign-up form, and the hosted form's script that solves it. */
@Controller()
export class ChallengesController {
  constructor(private readonly challenges: ChallengesService) {}

  @Get('public/v1/challenge')
  @Header('access-control-allow-origin', '*')
  @Header('cache-control', 'no-store')
  issue(@Query() query: unknown): Promise<Challenge> {
    return this.challenges.issue(parseInput(CHALLENGE_QUERY, query, 'query').key);
  }

  @Get('challenge.js')
  script(@Res() reply: FastifyReply): void {
    void reply.headers({ 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'public, max-age=300' }).send(HOSTED_FORM_SCRIPT);
  }
}
