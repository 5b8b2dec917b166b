import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { ApiError } from '../common/api-error';

/**
 * A text/csv body (POST /api/v1/entries/import) and a multipart one (the dashboard's upload) are left
 * unread for their route to stream, which counts the bytes against IMPORT_BODY_LIMIT itself; the JSON
 * routes' 64 KiB limit stays as it is, and any other route answers such a body 400 as it answers every
 * body that is not JSON (or 403 for a dashboard form without its token).
 */
export function registerCsvBodies(fastify: FastifyInstance): void {
  for (const type of ['text/csv', 'multipart/form-data']) fastify.addContentTypeParser(type, (_request, payload, done) => done(null, payload));
}

/** The request's CSV body as a stream; 400 invalid_request for any other content type. */
export function csvBody(request: FastifyRequest): Readable {
  const type = String(request.headers['content-type'] ?? '');
  if (!/^text\/csv\s*(;|$)/i.test(type) || !(request.body instanceof Readable)) {
    throw new ApiError('invalid_request', 'Send the file as the request body, with Content-Type text/csv.');
  }
  return request.body;
}
