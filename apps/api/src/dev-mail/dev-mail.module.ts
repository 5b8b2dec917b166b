import { Module } from '@nestjs/common';
import { DevMailController } from './dev-mail.controller';

/** The development inbox at /dev/mail, only while SMTP_URL is unset. */
@Module({ controllers: [DevMailController] })
export class DevMailModule {}
