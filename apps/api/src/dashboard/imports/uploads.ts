import busboy from 'busboy';
import type { FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { ApiError } from '../../common/api-error';

/** A form posted as multipart/form-data: its text fields (those before the file), and the file's name and bytes as they arrive. */
export interface Upload {
  fields: Record<string, string>;
  name: string;
  file: Readable;
}

/**
 * Reads a multipart form until its file part starts, and hands over that part as a stream: the
 * upload is never held whole. The form puts its fields before the file (browsers send parts in the
 * form's order); a file over `maxBytes` fails the stream with 400 invalid_request. Fields past
 * `maxFields` are dropped.
 */
export function formUpload(request: FastifyRequest, fileField: string, maxBytes: number, maxFields = 20): Promise<Upload> {
  if (!(request.body instanceof Readable) || !/^multipart\/form-data\s*;/i.test(String(request.headers['content-type'] ?? ''))) {
    return Promise.reject(new ApiError('invalid_request', 'Send the form as multipart/form-data, with its file.'));
  }
  const parts = busboy({
    headers: request.headers,
    limits: { files: 1, fields: maxFields, fieldSize: 64 * 1024, fileSize: maxBytes },
  });
  const body = request.body;
  return new Promise((resolve, reject) => {
    const fields: Record<string, string> = {};
    parts.on('field', (name, value) => {
      fields[name] = value;
    });
    parts.on('file', (name, file, info) => {
      if (name !== fileField) return void file.resume();
      file.on('limit', () => file.destroy(new ApiError('invalid_request', `The file is larger than ${maxBytes / 1024 / 1024} MiB; import it in parts.`)));
      resolve({ fields, name: info.filename ?? '', file });
    });
    parts.on('error', (error: Error | undefined) => reject(new ApiError('invalid_request', `The upload could not be read${error ? `: ${error.message}` : ''}.`)));
    parts.on('close', () => reject(new ApiError('invalid_request', 'Choose a CSV file to upload.')));
    body.pipe(parts);
  });
}

/** All the bytes of an upload's file (formUpload bounds them), to be held for the steps that follow. */
export async function wholeFile(source: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of source as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}
