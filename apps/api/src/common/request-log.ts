import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';

/** Confirmation and unsubscribe tokens and query strings never reach the request log. */
export function redactUrl(url: string): string {
  return url.replace(/^\/(confirm|unsubscribe)\/[^/?#]+/, '/$1/[redacted]').replace(/\?.*$/, '?[redacted]');
}

/**
 * Fastify's request lines: one per request, when it ends (not Fastify's two), with the method, the path
 * with tokens and the query string redacted, the status and the time, under the request's requestId,
 * as on every line logged through request.log. Every answer carries that id in X-Request-Id.
 */
export class RequestLog extends LogController {
  private readonly observers: ((request: FastifyRequest, reply: FastifyReply) => void)[] = [];

  constructor(private readonly logger: Logger) {
    super({ requestIdLogLabel: 'requestId' });
  }

  /** Also tells `observer` of every request that ended (the metrics), which Fastify reports here anyway. */
  onCompleted(observer: (request: FastifyRequest, reply: FastifyReply) => void): void {
    this.observers.push(observer);
  }

  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    for (const observe of this.observers) observe(request, reply);
    if (!this.logger.isLevelEnabled(error ? 'error' : 'info')) return;
    const line = { method: request.method, url: redactUrl(request.url), status: reply.statusCode, ms: Math.round(reply.elapsedTime) };
    if (error) request.log.error({ ...line, err: error }, 'request errored');
    else request.log.info(line, 'request completed');
  }
}
