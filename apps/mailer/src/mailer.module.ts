import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig, QueueName, WorkerFoundationModule } from '@app/shared';
import { ConfirmationMails } from './confirmation-mails';
import { InvitationProcessor } from './invitation.processor';
import { MailSender } from './mail-sender';
import { MailTransport } from './mail-transport';
import { MyDataMails } from './my-data-mails';
import { ReminderMails } from './reminder-mails';
import { MailTemplates } from './templates/mail-templates';

@Module({})
export class MailerModule {
  static register(config: AppConfig): DynamicModule {
    return {
      module: MailerModule,
      imports: [WorkerFoundationModule.register(config, QueueName.Invitations)],
      providers: [MailTransport, MailSender, MailTemplates, ConfirmationMails, InvitationProcessor, ReminderMails, MyDataMails],
    };
  }
}
