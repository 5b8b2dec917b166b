import { DynamicModule, Module } from '@nestjs/common';
import {
  AppConfig,
  Clock,
  ConfigModule,
  DatabaseModule,
  outboxRelayProvider,
  QueueName,
  QueuesModule,
  RedisClient,
} from '@app/shared';
import { DeliveryWorker } from './delivery.worker';
import { FanOutProcessor } from './fan-out.processor';

@Module({})
export class WebhooksModule {
  static register(config: AppConfig): DynamicModule {
    return {
      module: WebhooksModule,
      imports: [ConfigModule.forRoot(config), DatabaseModule, QueuesModule.register(QueueName.Webhooks, QueueName.Deliveries)],
      providers: [
        Clock,
        RedisClient,
        DeliveryWorker,
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
