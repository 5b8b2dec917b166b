import { DynamicModule, Module } from '@nestjs/common';
import { APP_CONFIG, AppConfig, outboxRelayProvider, QueueName, RetrySchedule, WorkerFoundationModule } from '@app/shared';
import { DeliveryReconciler } from './delivery-reconciler';
import { DeliveryWorker } from './delivery.worker';
import { FanOutProcessor } from './fan-out.processor';

@Module({})
export class WebhooksModule {
  static register(config: AppConfig): DynamicModule {
    return {
      module: WebhooksModule,
      imports: [WorkerFoundationModule.register(config, QueueName.Webhooks, QueueName.Deliveries)],
      providers: [
        { provide: RetrySchedule, inject: [APP_CONFIG], useFactory: (config: AppConfig) => new RetrySchedule(config.WEBHOOK_RETRY_DELAYS) },
        DeliveryWorker,
        DeliveryReconciler,
        FanOutProcessor,
        outboxRelayProvider(QueueName.Webhooks, () => ({
          attempts: 10,
          backoff: { type: 'exponential', delay: 5_000 },
          removeOnComplete: { age: 3600, count: 10_000 },
          removeOnFail: { age: 7 * 86_400 },
        })),
      ],
    };
  }
}
