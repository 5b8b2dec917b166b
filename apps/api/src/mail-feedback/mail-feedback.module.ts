import { Module } from '@nestjs/common';
import { MailFeedbackService } from './mail-feedback.service';
import { MailHooksController } from './mail-hooks.controller';
import { MailHooksService } from './mail-hooks.service';

/** Bounces and complaints: the providers' hooks (/hooks/mail/<provider>) and what is done with what they report. */
@Module({
  controllers: [MailHooksController],
  providers: [MailHooksService, MailFeedbackService],
  exports: [MailFeedbackService],
})
export class MailFeedbackModule {}
