import { DynamicModule, Module } from '@nestjs/common';
import { APP_CONFIG, AppConfig, QueueName, RetrySchedule, WorkerFoundationModule } from '@app/shared';
import { Attempts } from './attempts';
import { Claims } from './claims';
import { DeliveryReconciler } from './delivery-reconciler';
import { DeliveryWorker } from './delivery.worker';
import { FanOut } from './fan-out';

@Module({})
export class WebhooksModule {
  static register(config: AppConfig): DynamicModule {
    return {
      module: WebhooksModule,
      imports: [WorkerFoundationModule.register(config, QueueName.Deliveries)],
      providers: [
        { provide: RetrySchedule, inject: [APP_CONFIG], useFactory: (config: AppConfig) => new RetrySchedule(config.WEBHOOK_RETRY_DELAYS) },
        Attempts,
        Claims,
        DeliveryWorker,
        DeliveryReconciler,
        FanOut,
      ],
    };
  }
}
