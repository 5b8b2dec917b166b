import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from './api-error';
import { LoginRequired } from '../dashboard/dashboard.guard';
import { renderMessagePage } from './html';

/** Whatever went wrong, the client gets the error body of DESIGN.md §3 (or a page, on hosted pages). */
@Catch()
export class ErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(exception: unknown, host: ArgumentsHost): void {
    const request = host.switchToHttp().getRequest<FastifyRequest>();
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    if (exception instanceof LoginRequired) {
      void reply.redirect('/dashboard/login', 303);
      return;
    }
    const error = this.toApiError(exception);
    if (error.status >= 500) {
      this.logger.error(`${request.id} ${request.method} ${request.routeOptions.url ?? 'unknown route'}`, (exception as Error)?.stack);
    } else {
      this.logger.debug(`${request.id} ${error.status} ${error.code}`);
    }
    const { param, retryAfterSeconds } = error.details;
    if (retryAfterSeconds !== undefined) reply.header('Retry-After', String(retryAfterSeconds));
    if (wantsPage(request)) {
      reply.status(error.status).type('text/html; charset=utf-8').send(renderMessagePage(pageTitle(error.status), error.message));
      return;
    }
    const body = { error: { code: error.code, message: error.message, ...(param ? { param } : {}) } };
    reply.status(error.status).send(body);
  }

  private toApiError(exception: unknown): ApiError {
    if (exception instanceof ApiError) return exception;
    const status = exception instanceof HttpException ? exception.getStatus() : statusOf(exception);
    if (status === 404) return new ApiError('not_found', 'No such resource.');
    if (status !== undefined && status >= 400 && status < 500) {
      return new ApiError('invalid_request', describeClientError(exception));
    }
    return new ApiError('internal_error', 'Something went wrong on our side; please try again.');
  }
}

function statusOf(exception: unknown): number | undefined {
  const status = (exception as { statusCode?: unknown })?.statusCode;
  return typeof status === 'number' ? status : undefined;
}

/** Fastify's own messages for unreadable bodies are safe to show; anything else gets a plain sentence. */
function describeClientError(exception: unknown): string {
  const code = (exception as { code?: unknown })?.code;
  switch (code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'Send the request body as application/json.';
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'The request body is too large.';
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'The request body is empty; send a JSON object.';
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return 'The request body could not be read as JSON.';
    default:
      return exception instanceof SyntaxError ? 'The request body could not be read as JSON.' : 'The request could not be read.';
  }
}

/** Hosted pages (confirm, unsubscribe, sign-up form) answer people with HTML, not JSON. */
function wantsPage(request: FastifyRequest): boolean {
  const path = request.url.split('?')[0];
  if (/^\/(confirm|unsubscribe|w|dashboard)(\/|$)/.test(path)) return true;
  return path === '/public/v1/signups' && String(request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
}

function pageTitle(status: number): string {
  if (status === 404) return 'This link is not valid';
  if (status === 429) return 'Too many requests';
  if (status === 401) return 'Not signed in';
  if (status === 403) return 'Refused';
  if (status >= 500) return 'Something went wrong';
  return 'That did not work';
}
