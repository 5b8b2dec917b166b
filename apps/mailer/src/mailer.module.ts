import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig, outboxRelayProvider, QueueName, WorkerFoundationModule } from '@app/shared';
import type { JobsOptions } from 'bullmq';
import { ConfirmationProcessor } from './confirmation.processor';
import { InvitationProcessor } from './invitation.processor';
import { MailSender } from './mail-sender';
import { MailTransport } from './mail-transport';

/** Confirmation mails retry for about a day and a half of SMTP trouble before they are given up. */
const MAIL_JOB_OPTIONS: JobsOptions = {
  attempts: 12,
  backoff: { type: 'exponential', delay: 15_000 },
  removeOnComplete: { age: 3600, count: 10_000 },
  removeOnFail: { age: 7 * 86_400 },
};

@Module({})
export class MailerModule {
  static register(config: AppConfig): DynamicModule {
    return {
      module: MailerModule,
      imports: [WorkerFoundationModule.register(config, QueueName.Mail, QueueName.Invitations)],
      providers: [
        MailTransport,
        MailSender,
        ConfirmationProcessor,
        InvitationProcessor,
        outboxRelayProvider(QueueName.Mail, () => MAIL_JOB_OPTIONS),
      ],
    };
  }
}
