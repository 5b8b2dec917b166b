import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** An X-Request-Id we take as it is: short, and nothing a log line could be forged with. */
export const REQUEST_ID = /^[\w.:@/+=-]{1,128}$/;

/** The request's X-Request-Id when it is one we take, else a new one. */
export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}
