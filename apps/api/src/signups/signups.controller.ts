import { Controller, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../common/api-error';
import { parseInput } from '../common/validation';
import { SIGNUP, SignupReceived } from './signups.dto';
import { SignupsService } from './signups.service';

/** POST /public/v1/signups: JSON from a product's own form, or a plain HTML form post. */
@Controller('public/v1/signups')
export class SignupsController {
  constructor(private readonly signups: SignupsService) {}

  @Post()
  async signUp(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const type = String(request.headers['content-type'] ?? '');
    const isForm = type.startsWith('application/x-www-form-urlencoded');
    if (!isForm && !/^application\/json\s*(;|$)/i.test(type)) {
      throw new ApiError('invalid_request', 'Send the sign-up as application/json or as an HTML form.');
    }
    const input = parseInput(SIGNUP, request.body, 'body');
    await this.signups.signUp({ ...input, ref: input.ref || undefined, ip: request.ip });
    if (isForm) await reply.redirect(`/w/${encodeURIComponent(input.key)}/sent`, 303);
    else await reply.status(202).send({ status: 'received' } satisfies SignupReceived);
  }
}
