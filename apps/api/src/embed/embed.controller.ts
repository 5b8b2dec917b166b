import { Controller, Get, Header, Headers, Options, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { withSolver } from '../challenges/browser-scripts';
import { parseInput } from '../common/validation';
import { SIGNUP_STATUS_QUERY } from './embed.dto';
import { EmbedService } from './embed.service';

/** The script as written, with the challenge's solver in it. */
export const EMBED_SCRIPT = withSolver(join(__dirname, 'embed.browser.js'));
const EMBED_SCRIPT_GZIP = gzipSync(EMBED_SCRIPT, { level: 9 });

/** Like the public sign-up: any page may read these answers (and a 429's wait), and no credential is involved. */
const ANY_ORIGIN = { 'access-control-allow-origin': '*' };
const STATUS_HEADERS = { ...ANY_ORIGIN, 'access-control-expose-headers': 'retry-after' };

/** The script-tag form: its script, its words, and where its sign-up stands. */
@Controller()
export class EmbedController {
  constructor(private readonly embed: EmbedService) {}

  @Get('embed.js')
  script(@Req() request: FastifyRequest, @Res() reply: FastifyReply): void {
    void reply.headers({ 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'public, max-age=300', vary: 'accept-encoding' });
    if (/\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''))) void reply.header('content-encoding', 'gzip').send(EMBED_SCRIPT_GZIP);
    else void reply.send(EMBED_SCRIPT);
  }

  @Get('public/v1/forms/:key')
  @Header('access-control-allow-origin', '*')
  form(@Param('key') key: string, @Headers('accept-language') acceptLanguage?: string) {
    return this.embed.form(key, acceptLanguage);
  }

  @Options('public/v1/signups/status')
  preflight(@Res() reply: FastifyReply): void {
    void reply
      .status(204)
      .headers({ ...ANY_ORIGIN, 'access-control-allow-methods': 'POST', 'access-control-allow-headers': 'content-type', 'access-control-max-age': '86400' })
      .send();
  }

  /** A POST, so that the watch, a secret, stays out of URLs and access logs. */
  @Post('public/v1/signups/status')
  async status(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    void reply.headers(STATUS_HEADERS);
    const { key, watch } = parseInput(SIGNUP_STATUS_QUERY, request.body, 'body');
    await reply.status(200).send(await this.embed.watched(key, watch, request.ip));
  }
}
