import { DynamicModule, Global, INestApplicationContext, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig, loadConfig } from '../config/config';
import { ConfigModule } from '../config/config.module';
import { DevelopmentDefault, warnOfDevelopmentDefaults } from '../config/development-defaults';
import { Clock } from '../domain/clock';
import { createLogger, NestPinoLogger } from '../logging/logger';
import { Metrics } from '../metrics/metrics';
import { DatabaseModule } from './database.module';
import { QueuesModule } from './queues.module';
import { QueueName } from '../queues/contract';
import { startHealthServer } from './health-server';
import { RedisClient, redisClientProvider } from './redis-client';
import { Outages } from './outages';
import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { checkDependencies, explainListenError, listenHost, StartupError } from '../startup/dependencies';

/**
 * Runs a worker app: a Nest application context, plus /healthz, /readyz and /metrics when HEALTH_PORT is set.
 * `defaults`: the development defaults the app uses, named at start when it takes them.
 */
export async function runWorker(name: 'mailer' | 'webhooks', moduleFor: (config: AppConfig) => object, defaults: DevelopmentDefault[]): Promise<INestApplicationContext> {
  const config = loadConfig();
  await checkDependencies(config);
  const logger = createLogger(name, config.LOG_LEVEL);
  warnOfDevelopmentDefaults(logger, config, defaults);
  const app = await NestFactory.createApplicationContext(moduleFor(config), { logger: new NestPinoLogger(logger) });
  app.enableShutdownHooks();
  if (config.HEALTH_PORT) {
    const db = app.get<DataSource>(getDataSourceToken());
    const redis = app.get<RedisClient>(RedisClient);
    const metrics = app.get(Metrics);
    const server = await startHealthServer(
      { port: config.HEALTH_PORT, host: listenHost(config.HOST) },
      { database: () => db.query('SELECT 1'), redis: () => redis.ping() },
      (authorization) => metrics.scrape(authorization),
    ).catch(async (error: unknown) => {
      await app.close();
      throw new StartupError(explainListenError(error, config.HEALTH_PORT!, 'HEALTH_PORT') ?? (error as Error).message);
    });
    process.once('SIGTERM', () => server.close());
  }
  return app;
}

/**
 * What every worker app stands on: its configuration, PostgreSQL, BullMQ for the queues it works, the
 * clock, a Redis command connection and its metrics. The app's own module imports it and adds its processors.
 */
@Global()
@Module({})
export class WorkerFoundationModule {
  static register(config: AppConfig, ...queues: QueueName[]): DynamicModule {
    return {
      module: WorkerFoundationModule,
      imports: [ConfigModule.forRoot(config), DatabaseModule, QueuesModule.register(...queues)],
      providers: [
        Clock,
        redisClientProvider,
        Metrics,
        Outages,
        {
          // Without a listener BullMQ prints each of a queue's connection errors to stderr, stack and all.
          provide: 'QUEUE_ERRORS',
          inject: [Outages, ...queues.map((name) => getQueueToken(name))],
          useFactory: (outages: Outages, ...registered: Queue[]) => registered.forEach((queue) => queue.on('error', () => void outages.explain())),
        },
      ],
      exports: [Clock, RedisClient, Metrics, Outages, QueuesModule],
    };
  }
}
