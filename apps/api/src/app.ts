import fastifyCookie from '@fastify/cookie';
import { RawBodyRequest } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppConfig, createLogger, NestPinoLogger, warnOfDevelopmentDefaults } from '@app/shared';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { ApiModule } from './api.module';
import { ApiError } from './common/api-error';
import { registerBodyLimits } from './common/body-limit';
import { JobQueues } from './common/job-queues';
import { wantsPage } from './common/error.filter';
import { renderMessagePage } from './common/html';
import { requestIdOf } from './common/request-id';
import { redactUrl, RequestLog } from './common/request-log';
import { securityHeaders } from './common/security-headers';
import { TEMPLATE_EDITOR } from './dashboard/templates/template-preview';
import { UNREADABLE_BODY } from './common/validation';
import { DashboardAuthService } from './dashboard/auth/dashboard-auth.service';
import { registerQueueBoard } from './dashboard/queue-board';
import { Draining } from './health/draining';
import { registerMetrics } from './health/metrics';
import { registerEntryList } from './entries/entry-list';
import { registerCsvBodies } from './imports/csv-body';
import { registerInvitationChecks } from './invitations/invitation-checks';

const BODY_LIMIT = 64 * 1024;

/** The API application, as main.ts runs it and the tests start it (with a logger of their own). */
export async function createApiApp(config: AppConfig, logger: Logger = createLogger('api', config.LOG_LEVEL)): Promise<NestFastifyApplication> {
  // The api serves the development inbox and seals secrets with the key.
  warnOfDevelopmentDefaults(logger, config, ['SMTP_URL', 'ENCRYPTION_KEY']);
  const requestLog = new RequestLog(logger);
  const adapter = new FastifyAdapter({
    bodyLimit: BODY_LIMIT,
    trustProxy: trustedProxies(config.TRUST_PROXY),
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
    // Should Fastify itself ever log a request, its path is redacted like ours.
    loggerInstance: logger.child({}, { serializers: { req: (request: FastifyRequest) => ({ method: request.method, url: redactUrl(request.url) }) } }),
    genReqId: requestIdOf,
    logController: requestLog,
  });
  const app = await NestFactory.create<NestFastifyApplication>(ApiModule.register(config), adapter, { logger: new NestPinoLogger(logger) });
  // PostgreSQL text cannot hold a NUL, so no id, token or key contains one: such a path parameter names nothing.
  app.useGlobalPipes({
    transform: (value: unknown, metadata: { type: string }) => {
      if (metadata.type === 'param' && typeof value === 'string' && value.includes('\0')) throw new ApiError('not_found', 'No such resource.');
      return value;
    },
  });
  app.enableShutdownHooks();
  registerBodyLimits(app.getHttpAdapter().getInstance());
  const securityHeadersOf = await securityHeaders(config.PUBLIC_BASE_URL.startsWith('https:'), [TEMPLATE_EDITOR]);
  await app.register(fastifyCookie);
  // Nest registers its body parsers while it initialises; ours replaces its JSON parser afterwards.
  await app.init();
  const fastify = app.getHttpAdapter().getInstance();
  const draining = app.get(Draining);
  // Every answer's own headers are set here, in one place; its metrics are taken where the request log
  // sees it end (registerMetrics).
  fastify.addHook('onRequest', (request, reply, done) => {
    // The route's pattern, or the path for an unknown route (404).
    const security = securityHeadersOf(request.routeOptions.url ?? request.url);
    if (security) void reply.headers(security);
    void reply.header('x-request-id', request.id);
    if (draining.active) void reply.header('connection', 'close');
    done();
  });
  deferJsonErrors(fastify);
  registerCsvBodies(fastify);
  registerInvitationChecks(app);
  registerEntryList(app);
  registerMetrics(app, requestLog);
  await registerQueueBoard(fastify, app.get(JobQueues).all, app.get(DashboardAuthService), config.PUBLIC_BASE_URL);
  return app;
}

/**
 * Fastify's trustProxy for TRUST_PROXY. A hop count becomes a function, since Fastify refuses to trust
 * by count (it cannot tell the proxy from a client that reaches the api directly; docs/operations.md
 * says to use a count only where nothing but the proxies can reach it).
 */
function trustedProxies(trust: AppConfig['TRUST_PROXY']): false | string[] | ((address: string, hop: number) => boolean) {
  if (typeof trust !== 'number') return trust;
  return (_address, hop) => hop < trust;
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
