import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/config';
import { commandOptions } from '../queues/redis';
import Redis from 'ioredis';

/** A plain command connection (rate limits, readiness, the development inbox); fails fast while Redis is away. */
@Injectable()
export class RedisClient extends Redis implements OnApplicationShutdown {
  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    super(commandOptions(config.REDIS_URL));
    // Errors surface on the commands that fail; without a listener ioredis would print each reconnect.
    this.on('error', () => undefined);
  }

  onApplicationShutdown(): void {
    this.disconnect();
  }
}
