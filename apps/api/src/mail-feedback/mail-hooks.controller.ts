import { Controller, createParamDecorator, ExecutionContext, HttpCode, Param, Post, RawBodyRequest } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { BodyLimit } from '../common/body-limit';
import { HookCall } from './mail-hook';
import { MailHooksService } from './mail-hooks.service';

/** SendGrid posts events in batches of up to 768 KiB, SNS messages up to 256 KiB. */
const MAIL_HOOK_BODY_LIMIT = 1024 * 1024;

/** The call as it arrived: its headers and the body's bytes, which the signatures cover. */
const Call = createParamDecorator((_: unknown, context: ExecutionContext): HookCall => {
  const request = context.switchToHttp().getRequest<RawBodyRequest<FastifyRequest>>();
  return { headers: request.headers, rawBody: request.rawBody };
});

/** The mail providers' bounce and complaint webhooks. */
@Controller('hooks/mail')
export class MailHooksController {
  constructor(private readonly hooks: MailHooksService) {}

  @Post(':provider')
  @HttpCode(204)
  @BodyLimit(MAIL_HOOK_BODY_LIMIT)
  receive(@Param('provider') provider: string, @Call() call: HookCall): Promise<void> {
    return this.hooks.receive(provider, call);
  }
}
