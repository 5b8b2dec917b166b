import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { query } from '../common/validation';
import { SecretKeyGuard } from '../keys/secret-key.guard';
import { EntryPage, LIST_QUERY } from './entries.dto';
import { EntriesService } from './entries.service';

/**
 * The list of entries, which integrations page through, as a plain Fastify route like the invited
 * check (invitations/invitation-checks.ts): Nest's route pipeline cost more than the page's own work
 * beside the read. The same key check and rate limit, then the query's validation and the service;
 * errors go through the global filter.
 */
export function registerEntryList(app: NestFastifyApplication): void {
  const fastify = app.getHttpAdapter().getInstance();
  const keys = app.get(SecretKeyGuard);
  const entries = app.get(EntriesService);

  fastify.get('/api/v1/entries', async (request): Promise<EntryPage> => {
    const scope = await keys.scopeOf(request);
    return entries.list(scope, query(LIST_QUERY, request));
  });
}
