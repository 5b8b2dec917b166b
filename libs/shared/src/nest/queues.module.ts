import { BullModule, getQueueToken } from '@nestjs/bullmq';
import { DynamicModule, Module } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/config';
import { QueueName } from '../queues/contract';
import { endReconnecting, redisOptions } from '../queues/redis';
import type { Queue } from 'bullmq';

/** BullMQ on REDIS_URL under QUEUE_PREFIX, for the workers of the queues given here. */
@Module({})
export class QueuesModule {
  static register(...queues: QueueName[]): DynamicModule {
    return {
      module: QueuesModule,
      imports: [
        BullModule.forRootAsync({
          inject: [APP_CONFIG],
          // Workers block on Redis, so their connections must keep retrying.
          useFactory: (config: AppConfig) => ({
            connection: { ...redisOptions(config.REDIS_URL), maxRetriesPerRequest: null },
            prefix: config.QUEUE_PREFIX,
          }),
        }),
        ...queues.map((name) => BullModule.registerQueue({ name })),
      ],
      providers: [
        {
          // Before @nestjs/bullmq closes the queues, which would otherwise wait for ever after a Redis outage.
          provide: 'QUEUE_CONNECTIONS_ENDER',
          inject: queues.map((name) => getQueueToken(name)),
          useFactory: (...registered: Queue[]) => ({ beforeApplicationShutdown: () => registered.forEach(endReconnecting) }),
        },
      ],
      exports: [BullModule],
    };
  }
}
