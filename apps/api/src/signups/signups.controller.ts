import { Controller, Options, Post, Req, Res } from '@nestjs/common';
import { pickLocale } from '@app/shared';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../common/api-error';
import { parseInput } from '../common/validation';
import { formDetails, jsonDetails } from './signup-fields';
import { SIGNUP, SignupReceived } from './signups.dto';
import { SignupsService } from './signups.service';

/**
 * A script on any site may post a sign-up and read the answer: the publishable key is public, and an
 * HTML form could post from anywhere already. No cookie or credential is involved, so `*` is enough.
 */
const ANY_ORIGIN = 'access-control-allow-origin';

/** POST /public/v1/signups: JSON from a product's own form, or a plain HTML form post. */
@Controller('public/v1/signups')
export class SignupsController {
  constructor(private readonly signups: SignupsService) {}

  /** The browser's question before a script of another site posts JSON. */
  @Options()
  preflight(@Res() reply: FastifyReply): void {
    void reply
      .status(204)
      .headers({ [ANY_ORIGIN]: '*', 'access-control-allow-methods': 'POST', 'access-control-allow-headers': 'content-type', 'access-control-max-age': '86400' })
      .send();
  }

  @Post()
  async signUp(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    // Set first, so that refusals (400, 401, 429) are readable by the script too.
    void reply.header(ANY_ORIGIN, '*');
    const type = String(request.headers['content-type'] ?? '');
    const isForm = type.startsWith('application/x-www-form-urlencoded');
    if (!isForm && !/^application\/json\s*(;|$)/i.test(type)) {
      throw new ApiError('invalid_request', 'Send the sign-up as application/json or as an HTML form.');
    }
    const input = parseInput(SIGNUP, request.body, 'body');
    // A hosted form names no language; the browser's is the person's, if we speak it.
    const locale = input.locale ?? (isForm ? pickLocale(request.headers['accept-language']) : undefined);
    const details = isForm ? formDetails(request) : jsonDetails(request);
    await this.signups.signUp({ ...input, ref: input.ref || undefined, locale, ip: request.ip, requestId: request.id, details });
    if (isForm) await reply.redirect(`/w/${encodeURIComponent(input.key)}/sent`, 303);
    else await reply.status(202).send({ status: 'received' } satisfies SignupReceived);
  }
}
