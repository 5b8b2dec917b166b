import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Injectable } from '@nestjs/common';
import { Outages } from '@app/shared';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, ErrorBody } from './api-error';
import { renderMessagePage } from './html';

/** Whatever went wrong, the client gets the error body of DESIGN.md §3 (or a page, on hosted pages). */
@Catch()
@Injectable()
export class ErrorFilter implements ExceptionFilter {
  constructor(private readonly outages: Outages) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const request = host.switchToHttp().getRequest<FastifyRequest>();
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const error = this.toApiError(exception);
    if (error.status >= 500) {
      // During an outage every request that needs the server fails alike: Outages says it once.
      void this.outages.explain().then((outage) => {
        const details = { context: 'Errors', route: request.routeOptions.url ?? 'unknown route', stack: (exception as Error)?.stack };
        if (outage) request.log.debug(details, `${request.method} failed during an outage`);
        else request.log.error(details, `${request.method} failed`);
      });
    } else {
      request.log.debug({ context: 'Errors', status: error.status, code: error.code }, 'refused');
    }
    const { param, retryAfterSeconds } = error.details;
    if (retryAfterSeconds !== undefined) reply.header('Retry-After', String(retryAfterSeconds));
    if (wantsPage(request)) {
      reply.status(error.status).type('text/html; charset=utf-8').send(renderMessagePage(pageTitle(error.status), error.message));
      return;
    }
    const body: ErrorBody = { error: { code: error.code, message: error.message, ...(param ? { param } : {}) } };
    reply.status(error.status).send(body);
  }

  private toApiError(exception: unknown): ApiError {
    if (exception instanceof ApiError) return exception;
    const status = exception instanceof HttpException ? exception.getStatus() : statusOf(exception);
    if (status === 404) return new ApiError('not_found', 'No such resource.');
    if (status !== undefined && status >= 400 && status < 500) {
      // Unreadable JSON and unknown content types reach the handlers (see app.ts); what is left here is
      // transport-level (an oversized body, a bad header), and nothing about it is worth echoing.
      return new ApiError('invalid_request', 'The request could not be read.');
    }
    return new ApiError('internal_error', 'Something went wrong on our side; please try again.');
  }
}

function statusOf(exception: unknown): number | undefined {
  const status = (exception as { statusCode?: unknown })?.statusCode;
  return typeof status === 'number' ? status : undefined;
}

/**
 * Hosted pages (confirm, unsubscribe, sign-up form, my-data, invitation), the dashboard and the development
 * inbox answer people with HTML, not JSON (a JSON body under their text/html type would fail as a 500).
 */
export function wantsPage(request: FastifyRequest): boolean {
  const path = request.url.split('?')[0];
  if (/^\/(confirm|unsubscribe|w|my-data|invitation|dashboard|dev)(\/|$)/.test(path)) return true;
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
