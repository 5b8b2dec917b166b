import fastifyCookie from '@fastify/cookie';
import { RawBodyRequest } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppConfig, nestLogLevels } from '@app/shared';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Duplex } from 'node:stream';
import { ApiModule } from './api.module';
import { ApiError } from './common/api-error';
import { wantsPage } from './common/error.filter';
import { renderMessagePage } from './common/html';
import { registerSecurityHeaders } from './common/security-headers';
import { UNREADABLE_BODY } from './common/validation';
import { DashboardAuthService } from './dashboard/dashboard-auth.service';
import { registerQueueBoard } from './dashboard/queue-board';
import { registerMetrics } from './health/metrics';
import { registerInvitationChecks } from './invitations/invitation-checks';

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
    // Long ids and tokens are not found (404), not refused as 414.
    routerOptions: { maxParamLength: 8192 },
    // A URL that cannot be decoded never reaches Nest; answer it in our error body, without echoing it.
    frameworkErrors: (_error: Error, request: FastifyRequest, reply: FastifyReply) => {
      if (wantsPage(request)) {
        void reply.status(400).type('text/html; charset=utf-8').send(renderMessagePage('This link is not valid', 'The address could not be read; check that it was copied whole.'));
        return;
      }
      void reply.status(400).send({ error: { code: 'invalid_request', message: 'The URL could not be read.' } });
    },
    clientErrorHandler: answerUnreadableRequest,
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
  // PostgreSQL text cannot hold a NUL, so no id, token or key contains one: such a path parameter names nothing.
  app.useGlobalPipes({
    transform: (value: unknown, metadata: { type: string }) => {
      if (metadata.type === 'param' && typeof value === 'string' && value.includes('\0')) throw new ApiError('not_found', 'No such resource.');
      return value;
    },
  });
  app.enableShutdownHooks();
  await registerSecurityHeaders(app, config.PUBLIC_BASE_URL.startsWith('https:'));
  await app.register(fastifyCookie);
  // Nest registers its body parsers while it initialises; ours replaces its JSON parser afterwards.
  await app.init();
  const fastify = app.getHttpAdapter().getInstance();
  deferJsonErrors(fastify);
  registerInvitationChecks(app);
  registerMetrics(app);
  await registerQueueBoard(fastify, config, app.get(DashboardAuthService));
  return app;
}

/**
 * A request Node's HTTP parser refuses (request line and headers over its 16 KiB limit, malformed HTTP) never
 * reaches a route: it is answered here, on the bare socket, in our error body. 400 invalid_request, as
 * for a body over the limit; the path is unknown, so a dashboard page gets JSON too.
 */
function answerUnreadableRequest(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const message = error.code === 'HPE_HEADER_OVERFLOW' ? 'The request line and headers are too large.' : 'The request could not be read.';
  const body = JSON.stringify({ error: { code: 'invalid_request', message } });
  if (socket.writable) {
    socket.write(`HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  }
  socket.destroy(error);
}

/**
 * Unreadable JSON becomes a marker instead of an error, so that the guards run first (a bad key is
 * 401 whatever the body) and the body's reader answers 400 invalid_request afterwards. The body as it
 * arrived stays on the request as `rawBody` (as Nest's rawBody option keeps it), for signatures over it.
 */
function deferJsonErrors(fastify: FastifyInstance): void {
  const parse = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (request, body, done) => {
    (request as RawBodyRequest<FastifyRequest>).rawBody = body as Buffer;
    parse(request, (body as Buffer).toString('utf8'), (error, value) => done(null, error ? UNREADABLE_BODY : value));
  });
  // Any other content type is unreadable too (text/plain included), and answered after authentication like bad JSON.
  fastify.removeContentTypeParser('text/plain');
  fastify.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (request, body, done) => {
    (request as RawBodyRequest<FastifyRequest>).rawBody = body as Buffer;
    done(null, UNREADABLE_BODY);
  });
}
