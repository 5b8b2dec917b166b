import 'reflect-metadata';
import { runWorker } from '@app/shared';
import { MailerModule } from './mailer.module';

runWorker('mailer', (config) => MailerModule.register(config)).catch((error: Error) => {
  console.error(error.message);
  process.exit(1);
});
