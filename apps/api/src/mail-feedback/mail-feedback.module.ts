import { Module } from '@nestjs/common';
import { MailFeedbackService } from './mail-feedback.service';

/** Bounces and complaints from the mail providers (docs/webhooks.md), acted on once each. */
@Module({ providers: [MailFeedbackService], exports: [MailFeedbackService] })
export class MailFeedbackModule {}
