import 'reflect-metadata';
import { runWorker } from '@app/shared';
import { WebhooksModule } from './webhooks.module';

runWorker('webhooks', (config) => WebhooksModule.register(config)).catch((error: Error) => {
  console.error(error.message);
  process.exit(1);
});
