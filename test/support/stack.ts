import 'reflect-metadata';
import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppConfig, createDataSource, isClusterConfig, redisOptions, createLogger, loadConfig, NestPinoLogger } from '@app/shared';
import Redis from 'ioredis';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import { createApiApp } from '../../apps/api/src/app';
import { ProductsService } from '../../apps/api/src/products/products.service';
import { MailerModule } from '../../apps/mailer/src/mailer.module';
import { WebhooksModule } from '../../apps/webhooks/src/webhooks.module';
import { admin, databaseUrl, TEMPLATE_ENV } from './databases';
import { expectDocumentedAnswer } from './openapi';
import { SmtpSink } from './smtp-sink';

export type AppName = 'api' | 'mailer' | 'webhooks';

export interface StackOptions {
  env?: Record<string, string>;
  /** Apps to start now; others can be started later with startApp. Default: all three. */
  apps?: AppName[];
}

export interface Product {
  id: string;
  keys: Record<'live' | 'test', { secret: string; publishable: string }>;
}

/**
 * The service as a test sees it: its own database (a copy of the migrated template), its own queue
 * prefix on the shared Redis, a real SMTP sink, and the apps running in this process.
 */
export class Stack {
  readonly mail = new SmtpSink();
  /** Every line the apps logged (at LOG_LEVEL, silent unless a test or TEST_LOG_LEVEL sets it); shown too under TEST_LOG_LEVEL. */
  readonly logs: string[] = [];
  private readonly logDestination = {
    write: (line: string) => {
      this.logs.push(line);
      if (process.env.TEST_LOG_LEVEL) process.stdout.write(line);
    },
  };
  /** The test's own connection to the stack's database, for assertions. */
  db!: DataSource;
  config!: AppConfig;
  api!: NestFastifyApplication;
  private readonly workers = new Map<AppName, INestApplicationContext>();
  private readonly databaseName = `${process.env[TEMPLATE_ENV]}_${randomBytes(4).toString('hex')}`;
  private readonly prefix = `wltest-${randomBytes(4).toString('hex')}`;

  static async start(options: StackOptions = {}): Promise<Stack> {
    const stack = new Stack();
    try {
      await stack.setUp(options);
    } catch (error) {
      await stack.stop().catch(() => undefined);
      throw error;
    }
    return stack;
  }

  private async setUp(options: StackOptions): Promise<void> {
    const template = process.env[TEMPLATE_ENV];
    if (!template) throw new Error('No template database: run the tests through jest (globalSetup)');
    await admin((client) => client.query(`CREATE DATABASE ${this.databaseName} TEMPLATE ${template}`));
    const smtpUrl = await this.mail.start();
    this.config = loadConfig({
      DATABASE_URL: databaseUrl(this.databaseName),
      QUEUE_PREFIX: this.prefix,
      SMTP_URL: smtpUrl,
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      REDIS_URL: process.env.REDIS_URL,
      ...options.env,
    });
    this.db = createDataSource(this.config.DATABASE_URL);
    await this.db.initialize();
    for (const name of options.apps ?? ['api', 'mailer', 'webhooks']) await this.startApp(name);
  }

  async startApp(name: AppName): Promise<void> {
    if (name === 'api') {
      this.api = await createApiApp(this.config, createLogger('api', this.config.LOG_LEVEL, this.logDestination));
      await this.api.getHttpAdapter().getInstance().ready();
      return;
    }
    const module = name === 'mailer' ? MailerModule.register(this.config) : WebhooksModule.register(this.config);
    const app = await NestFactory.createApplicationContext(module, { logger: new NestPinoLogger(createLogger(name, this.config.LOG_LEVEL, this.logDestination)) });
    await app.init();
    this.workers.set(name, app);
  }

  /** A running worker app's context (mailer or webhooks), e.g. to move its clock. */
  worker(name: Exclude<AppName, 'api'>): INestApplicationContext {
    const app = this.workers.get(name);
    if (!app) throw new Error(`The ${name} app is not running`);
    return app;
  }

  async stopApp(name: AppName): Promise<void> {
    if (name === 'api') return this.api.close();
    await this.workers.get(name)?.close();
    this.workers.delete(name);
  }

  /** The API's address on a port of this machine (listening from the first call), for tests that need a real connection. */
  async url(): Promise<string> {
    const server = this.api.getHttpServer();
    if (!server.listening) await this.api.listen(0, '127.0.0.1');
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  async request(options: {
    method: 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH' | 'OPTIONS';
    url: string;
    headers?: Record<string, string>;
    body?: unknown;
    /** A raw body, sent as it is. */
    payload?: string | Buffer;
    /** The client's address as the API sees it (default 127.0.0.1). */
    remoteAddress?: string;
  }) {
    const headers = { ...options.headers };
    let payload = options.payload;
    if (options.body !== undefined) {
      payload = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await this.api.inject({ method: options.method, url: options.url, headers, payload, remoteAddress: options.remoteAddress });
    expectDocumentedAnswer({ method: options.method, url: options.url, status: response.statusCode, headers: response.headers, body: response.body });
    return { status: response.statusCode, headers: response.headers, text: response.body, json: () => response.json() };
  }

  /** A product made through the same service as the CLI, with live and test keys. */
  async createProduct(input: { name?: string; signupUrl?: string; referralPlaces?: number } = {}): Promise<Product> {
    return this.api.get(ProductsService).create({ name: input.name ?? 'Acme', ...input });
  }

  async stop(): Promise<void> {
    for (const name of [...this.workers.keys()]) await this.stopApp(name);
    await this.api?.close();
    if (this.db?.isInitialized) await this.db.destroy();
    await this.mail.stop();
    await admin((client) => client.query(`DROP DATABASE IF EXISTS ${this.databaseName} WITH (FORCE)`));
    // A test's own cluster goes with its keys.
    if (this.config && !isClusterConfig(this.config)) await deleteKeys(this.config.REDIS_URL, `${this.prefix}*`);
  }
}

/** Removes a test run's keys from the shared Redis. */
export async function deleteKeys(redisUrl: string, pattern: string): Promise<void> {
  const redis = new Redis({ ...redisOptions(redisUrl), maxRetriesPerRequest: 1, connectTimeout: 2000 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      if (keys.length) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
