import { Global, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { Clock, Metrics, RedisClient, redisClientProvider } from '@app/shared';
import { ErrorFilter } from './error.filter';
import { RateLimits } from './rate-limits';

/** The plumbing every feature may use: the clock, the Redis command connection, rate limits, metrics, the error body. */
@Global()
@Module({
  providers: [Clock, redisClientProvider, RateLimits, Metrics, { provide: APP_FILTER, useClass: ErrorFilter }],
  exports: [Clock, RedisClient, RateLimits, Metrics],
})
export class CommonModule {}
