import type { INestApplicationContext } from '@nestjs/common';
import type { z } from 'zod';
import type { ProductScope } from '../common/scope';
import { ReleasesService } from '../releases/releases.service';
import { UsageError } from './command';

/** The flags of a release, checked by the API's own schema, its first problem in the CLI's words. */
export function releaseFlags<T extends z.ZodType>(schema: T, given: Record<string, unknown>, flags: Record<string, string>): z.output<T> {
  const result = schema.safeParse(Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined)));
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new UsageError(`${flags[String(issue.path[0])] ?? 'The release'}: ${issue.message}.`);
}

/** `--count` as the number the schema takes; anything else stays text, which the schema refuses. */
export const countFlag = (value: string | undefined) => (value !== undefined && /^\d+$/.test(value) ? Number(value) : value);

export const RELEASE_FLAGS = { count: '--count', pattern: '--pattern', timeZone: '--time-zone' };

export const RELEASE_OPTION = { flags: '--release <ID>', description: 'the release (rel_…)', required: true } as const;

/** The release named by --release, with its product and mode. */
export async function releaseScope(app: INestApplicationContext, id: string): Promise<ProductScope> {
  const scope = await app.get(ReleasesService).scopeOf(id);
  if (!scope) throw new UsageError(`No release ${id}.`);
  return scope;
}

/** One line per release: what it does and when it runs next, in its zone. */
export function releaseLine(release: { id: string; count: number; pattern: string; timeZone: string; nextRunLocal: string | null }): string {
  return `${release.id}  invite ${release.count} every "${release.pattern}" in ${release.timeZone}, ${release.nextRunLocal ? `next ${release.nextRunLocal}` : 'paused'}`;
}
