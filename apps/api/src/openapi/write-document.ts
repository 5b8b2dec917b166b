import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { buildOpenApiDocument, OPENAPI_FILE, serializeDocument } from './document';

// `npm run docs:openapi`: the committed copy, docs/openapi.json, from the code.
writeFileSync(resolve(OPENAPI_FILE), serializeDocument(buildOpenApiDocument()));
console.log(`wrote ${OPENAPI_FILE}`);
