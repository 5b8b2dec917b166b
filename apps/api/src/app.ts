import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppConfig, nestLogLevels } from '@app/shared';
import type { FastifyRequest } from 'fastify';
import { ApiModule } from './api.module';

const BODY_LIMIT = 64 * 1024;

/** Confirmation and unsubscribe tokens and query strings never reach the request log. */
export function redactUrl(url: string): string {
  return url.replace(/^\/(confirm|unsubscribe)\/[^/?#]+/, '/$1/[redacted]').replace(/\?.*$/, '?[redacted]');
}

/** The API application, as main.ts runs it and the tests start it. */
export async function createApiApp(config: AppConfig): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    bodyLimit: BODY_LIMIT,
    trustProxy: config.TRUST_PROXY,
    logger: {
      level: config.LOG_LEVEL,
      serializers: {
        req: (request: FastifyRequest) => ({ method: request.method, url: redactUrl(request.url), ip: request.ip }),
      },
    },
  });
  const app = await NestFactory.create<NestFastifyApplication>(ApiModule.register(config), adapter, {
    logger: nestLogLevels(config.LOG_LEVEL),
  });
  app.enableShutdownHooks();
  return app;
}
