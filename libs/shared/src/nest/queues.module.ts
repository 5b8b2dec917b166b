import { BullModule, getQueueToken } from '@nestjs/bullmq';
import { DynamicModule, Module } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/config';
import { QueueName } from '../queues/contract';
import { endQueueConnection, endReconnecting, queueConnection, queuePrefix } from '../queues/redis';
import type { Queue } from 'bullmq';

/** BullMQ on the configured Redis under QUEUE_PREFIX, for the workers of the queues given here. */
@Module({})
export class QueuesModule {
  static register(...queues: QueueName[]): DynamicModule {
    return {
      module: QueuesModule,
      imports: [
        BullModule.forRootAsync({
          inject: [APP_CONFIG],
          useFactory: (config: AppConfig) => ({ connection: queueConnection(config), prefix: queuePrefix(config) }),
        }),
        ...queues.map((name) => BullModule.registerQueue({ name })),
      ],
      providers: [
        {
          provide: 'QUEUE_CONNECTIONS_ENDER',
          inject: queues.map((name) => getQueueToken(name)),
          useFactory: (...registered: Queue[]) => ({
            // Before @nestjs/bullmq closes the queues, which would otherwise wait for ever after a Redis outage.
            beforeApplicationShutdown: () => registered.forEach(endReconnecting),
            // After the workers closed (QueueProcessor closes them before), as their connections came of it too.
            onApplicationShutdown: () => registered.forEach((queue) => endQueueConnection(queue.opts.connection)),
          }),
        },
      ],
      exports: [BullModule],
    };
  }
}
