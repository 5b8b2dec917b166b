import { z } from 'zod';
import { queryWholeNumber, wholeNumber } from '../common/validation';
import { scheduleProblem } from './release-schedule';

const COUNT = wholeNumber(1, 1000).meta({ description: 'How many people from the front of the line each run invites (fewer when the capacity cap leaves fewer places).', example: 100 });
const PATTERN = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .meta({ description: 'A cron expression: five fields (minute hour day-of-month month day-of-week), or six with seconds first.', example: '0 9 * * 1' });
const TIME_ZONE = z.string().trim().min(1).max(64).meta({ description: 'The IANA time zone the expression is read in.', example: 'Europe/Berlin' });

/** A schedule's two parts are checked together: the expression is read in its zone. */
const validSchedule = <T extends { pattern?: string; timeZone?: string }>(release: T, context: z.RefinementCtx) => {
  if (release.pattern === undefined && release.timeZone === undefined) return;
  const problem = scheduleProblem(release.pattern ?? '* * * * *', release.timeZone ?? 'UTC');
  if (problem) context.addIssue({ code: 'custom', message: problem, path: [problem.startsWith('The time zone') ? 'timeZone' : 'pattern'] });
};

/** POST /api/v1/releases's body; the dashboard's form is checked against it too. */
export const NEW_RELEASE = z
  .object({
    count: COUNT,
    pattern: PATTERN,
    timeZone: TIME_ZONE,
    paused: z.boolean().optional().meta({ description: 'Made paused: it runs only when resumed (or run now). False unless given.' }),
  })
  .superRefine(validSchedule);
export type NewRelease = z.output<typeof NEW_RELEASE>;

/** PATCH /api/v1/releases/{id}'s body: the fields given change; paused pauses or resumes. */
export const RELEASE_CHANGES = z
  .object({
    count: COUNT.optional(),
    pattern: PATTERN.optional(),
    timeZone: TIME_ZONE.optional(),
    paused: z.boolean().optional().meta({ description: 'true pauses the release, false resumes it: the next run is the next tick from now, a tick missed while paused is not made up.' }),
  })
  .meta({ description: 'A new pattern is read in the release\'s zone and a new zone with its pattern: the two are checked together (400 invalid_request).' });
export type ReleaseChanges = z.output<typeof RELEASE_CHANGES>;

export const RELEASE_ID = z.object({ id: z.string().meta({ description: "The release's id.", example: 'rel_2b7e1c9a4f3d8e6b0a5c7d19' }) });

export const RELEASE = z
  .object({
    id: z.string().meta({ example: 'rel_2b7e1c9a4f3d8e6b0a5c7d19' }),
    mode: z.enum(['live', 'test']).meta({ description: "The mode of the key that made it; it invites from that mode's line." }),
    count: z.number().int().meta({ description: 'How many people from the front of the line each run invites.' }),
    pattern: z.string().meta({ description: 'The cron expression, read in timeZone.' }),
    timeZone: z.string().meta({ description: 'The IANA time zone of pattern.' }),
    paused: z.boolean().meta({ description: 'A paused release does not run on its ticks.' }),
    nextRunAt: z.string().nullable().meta({ description: 'When it runs next (UTC, ISO 8601); null while paused.', example: '2026-11-30T08:00:00.000Z' }),
    nextRunLocal: z.string().nullable().meta({ description: "The same time as the release's zone shows it, with the offset; null while paused.", example: '2026-11-30T09:00:00+01:00' }),
    createdAt: z.string(),
  })
  .meta({ id: 'Release', description: 'A scheduled release: it invites count from the front of the line at every tick of pattern read in timeZone.' });
export type ReleaseView = z.infer<typeof RELEASE>;

export const RELEASES = z.object({ data: z.array(RELEASE).meta({ description: 'The releases of the key\'s product and mode, oldest first.' }) }).meta({ id: 'ReleaseList' });

export const RELEASE_RUN = z
  .object({
    id: z.string().meta({ example: 'run_7d3a9c1e5b2f8a4d6c0e1b93' }),
    releaseId: z.string().meta({ description: 'The release it is a run of.' }),
    tickAt: z.string().nullable().meta({ description: 'The scheduled time this run was for (UTC); null for run now.' }),
    tickLocal: z.string().nullable().meta({ description: "The same time as the release's zone shows it; null for run now." }),
    startedAt: z.string(),
    finishedAt: z.string().nullable().meta({ description: 'null while the run is still waiting for its mails.' }),
    asked: z.number().int().meta({ description: "The release's count when it ran." }),
    invited: z.number().int().meta({ description: 'Entries invited, their mails handed over.' }),
    failed: z.number().int().meta({ description: 'Entries whose mail could not be handed over: they stay in line, at their place.' }),
    skippedForCapacity: z.number().int().meta({ description: 'How many of asked the capacity cap left out.' }),
    skippedForQuota: z
      .number()
      .int()
      .optional()
      .meta({ description: "How many of asked the product's hourly or daily mail quota left for a later run; only present when it left some out." }),
    failedEntryIds: z.array(z.string()).meta({ description: 'The entries of failed, in line order.' }),
    error: z.string().nullable().meta({ description: 'Why the run stopped before it was done (the database or Redis away); null when it ran.' }),
  })
  .meta({ id: 'ReleaseRun', description: 'One run of a release: what it was asked, who was invited, whose mail failed, what the capacity cap left out.' });
export type ReleaseRunView = z.infer<typeof RELEASE_RUN>;

export const RELEASE_RUNS = z.object({ data: z.array(RELEASE_RUN).meta({ description: 'The newest runs first.' }) }).meta({ id: 'ReleaseRunList' });
export type ReleaseRunList = z.infer<typeof RELEASE_RUNS>;

export const RUNS_QUERY = z.object({ limit: queryWholeNumber(1, 100, 20).meta({ description: 'How many runs, newest first.' }) });
