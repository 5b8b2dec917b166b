import { Global, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { Clock, Metrics, Outages, RedisClient, redisClientProvider } from '@app/shared';
import { ErrorFilter } from './error.filter';
import { JobQueues } from './job-queues';
import { RateLimits } from './rate-limits';

/** The plumbing every feature may use: the clock, the Redis command connection, outages, rate limits, metrics, the error body. */
@Global()
@Module({
  providers: [Clock, redisClientProvider, Outages, RateLimits, Metrics, JobQueues, { provide: APP_FILTER, useClass: ErrorFilter }],
  exports: [Clock, RedisClient, Outages, RateLimits, Metrics, JobQueues],
})
export class CommonModule {}
