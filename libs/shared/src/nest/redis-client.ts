import { FactoryProvider } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/config';
import { openCommandConnection, RedisConnection } from '../queues/redis';

/** A plain command connection (rate limits, readiness, the development inbox); fails fast while Redis is away (openCommandConnection). */
export type RedisClient = RedisConnection;
export const RedisClient = Symbol('RedisClient');

export const redisClientProvider: FactoryProvider<RedisClient> = {
  provide: RedisClient,
  inject: [APP_CONFIG],
  useFactory: (config: AppConfig) => {
    const redis = openCommandConnection(config);
    // Errors surface on the commands that fail; without a listener ioredis would print each reconnect.
    redis.on('error', () => undefined);
    // Nest calls the shutdown hook of whatever a provider made.
    return Object.assign(redis, { onApplicationShutdown: () => redis.disconnect() });
  },
};
