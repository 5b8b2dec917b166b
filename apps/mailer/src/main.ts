import '@app/shared/startup/check-node';
import 'reflect-metadata';
import { exitWithReason, runWorker } from '@app/shared';
import { MailerModule } from './mailer.module';

// Without SMTP_URL the mailer keeps mails for the development inbox instead of sending them, which shows
// itself (nobody gets mail); the api, which publishes that inbox, names it. So the mailer names nothing.
runWorker('mailer', (config) => MailerModule.register(config), []).catch(exitWithReason);
