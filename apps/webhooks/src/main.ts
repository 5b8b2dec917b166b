import '@app/shared/startup/check-node';
import 'reflect-metadata';
import { exitWithReason, runWorker } from '@app/shared';
import { WebhooksModule } from './webhooks.module';

// The webhooks app opens the endpoints' signing secrets with the key.
runWorker('webhooks', (config) => WebhooksModule.register(config), ['ENCRYPTION_KEY']).catch(exitWithReason);
