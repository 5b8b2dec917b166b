import { Controller, Get, Headers, Inject, Query, Res } from '@nestjs/common';
import { APP_CONFIG, AppConfig, DEFAULT_LOCALE, HOSTED_INVITATION_PATH, pickLocale, translator } from '@app/shared';
import type { FastifyReply } from 'fastify';
import { invitationPage } from './invitation-page';
import { InviteCodesService } from './invite-codes.service';

/**
 * The invite URL of a product that has none (the demo product of npm start among them): a page for
 * the holder of the code, without a key. It only reads, as mail scanners open links; its headers are
 * those of the confirm page (common/security-headers.ts).
 */
@Controller()
export class InvitationPageController {
  constructor(
    private readonly codes: InviteCodesService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get(HOSTED_INVITATION_PATH)
  async show(@Query('invite') code: unknown, @Headers('accept-language') accepted: string | undefined, @Res() reply: FastifyReply): Promise<void> {
    // A repeated parameter (an array) or none is no code.
    const standing = typeof code === 'string' && code ? await this.codes.standing(code) : { state: 'unknown' as const };
    const { status, body } = invitationPage(standing, {
      code: String(code),
      baseUrl: this.config.PUBLIC_BASE_URL,
      t: translator('locale' in standing ? standing.locale : (pickLocale(accepted) ?? DEFAULT_LOCALE)),
    });
    await reply.status(status).header('Cache-Control', 'no-store').type('text/html; charset=utf-8').send(body);
  }
}
