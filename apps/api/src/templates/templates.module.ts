import { Module } from '@nestjs/common';
import { KeysModule } from '../keys/keys.module';
import { MailTemplatesService } from './mail-templates.service';
import { TestMails } from './test-mails';

/** A product's own mail templates: kept, checked, previewed and test-sent (the dashboard edits them; the mailer renders them). */
@Module({
  imports: [KeysModule],
  providers: [MailTemplatesService, TestMails],
  exports: [MailTemplatesService, TestMails],
})
export class TemplatesModule {}
