import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { NEW_RELEASE, RELEASE, RELEASE_CHANGES, RELEASE_ID, RELEASE_RUN, RELEASE_RUNS, RELEASES, ReleaseRunView, ReleaseView, RUNS_QUERY } from '../releases/releases.dto';
import { secretKeyOperation } from './operations';

const RELEASE_EXAMPLE: ReleaseView = {
  id: 'rel_2b7e1c9a4f3d8e6b0a5c7d19',
  mode: 'live',
  count: 100,
  pattern: '0 9 * * 1',
  timeZone: 'Europe/Berlin',
  paused: false,
  nextRunAt: '2026-11-30T08:00:00.000Z',
  nextRunLocal: '2026-11-30T09:00:00+01:00',
  createdAt: '2026-11-25T10:00:00.000Z',
};
const RUN_EXAMPLE: ReleaseRunView = {
  id: 'run_7d3a9c1e5b2f8a4d6c0e1b93',
  releaseId: RELEASE_EXAMPLE.id,
  tickAt: '2026-11-30T08:00:00.000Z',
  tickLocal: '2026-11-30T09:00:00+01:00',
  startedAt: '2026-11-30T08:00:00.014Z',
  finishedAt: '2026-11-30T08:00:03.870Z',
  asked: 100,
  invited: 59,
  failed: 1,
  skippedForCapacity: 40,
  failedEntryIds: ['ent_0d4e8b1f6a2c9e3b7d5a1f08'],
  error: null,
};
const TAGS: ['Releases'] = ['Releases'];

/** The releases' operations under /api/v1, in the key's product and mode (PATHS takes them in). */
export const RELEASE_PATHS: ZodOpenApiPathsObject = {
  '/api/v1/releases': {
    get: secretKeyOperation({
      operationId: 'listReleases',
      tags: TAGS,
      summary: 'List releases',
      description: "The scheduled releases of the key's product and mode, oldest first, each with its next run.",
      ok: { status: 200, description: 'The releases.', schema: RELEASES, example: { data: [RELEASE_EXAMPLE] } },
    }),
    post: secretKeyOperation({
      operationId: 'createRelease',
      tags: TAGS,
      summary: 'Schedule a release',
      description:
        'Invites count entries from the front of the line at every tick of a cron expression read in an IANA time zone, as invite-next does (line order; an entry whose mail fails stays in line and is reported in the run). A tick runs once across every replica. With the product\'s capacity cap, a run invites min(count, cap − outstanding). Across daylight-saving changes a tick in the missing hour runs an hour later on the clock, and the doubled hour runs once.',
      body: { schema: NEW_RELEASE, example: { count: 100, pattern: '0 9 * * 1', timeZone: 'Europe/Berlin' } },
      ok: { status: 201, description: 'The release, scheduled (or paused).', schema: RELEASE, example: RELEASE_EXAMPLE },
      idempotent: true,
    }),
  },
  '/api/v1/releases/{id}': {
    get: secretKeyOperation({
      operationId: 'getRelease',
      tags: TAGS,
      summary: 'Read a release',
      description: 'One release with its next run, in UTC and in its zone.',
      path: RELEASE_ID,
      ok: { status: 200, description: 'The release.', schema: RELEASE, example: RELEASE_EXAMPLE },
      errors: { 404: ['not_found'] },
    }),
    patch: secretKeyOperation({
      operationId: 'updateRelease',
      tags: TAGS,
      summary: 'Change, pause or resume a release',
      description: 'Changes the fields given. paused: true pauses it (no run until resumed), false resumes it from the next tick; a tick missed while paused is not made up.',
      path: RELEASE_ID,
      body: { schema: RELEASE_CHANGES, example: { paused: true } },
      ok: { status: 200, description: 'The release as it is now.', schema: RELEASE, example: { ...RELEASE_EXAMPLE, paused: true, nextRunAt: null, nextRunLocal: null } },
      errors: { 404: ['not_found'] },
    }),
    delete: secretKeyOperation({
      operationId: 'deleteRelease',
      tags: TAGS,
      summary: 'Delete a release',
      description: 'Removes the release and its runs; it runs no more. The entries it invited stay invited.',
      path: RELEASE_ID,
      ok: { status: 204, description: 'Deleted; no body.' },
      errors: { 404: ['not_found'] },
    }),
  },
  '/api/v1/releases/{id}/run': {
    post: secretKeyOperation({
      operationId: 'runRelease',
      tags: TAGS,
      summary: 'Run a release now',
      description: 'One run now, beside the schedule (also while paused), answered once its mails were settled. No body.',
      path: RELEASE_ID,
      ok: { status: 200, description: 'The run.', schema: RELEASE_RUN, example: { ...RUN_EXAMPLE, tickAt: null, tickLocal: null } },
      errors: { 404: ['not_found'] },
      idempotent: true,
    }),
  },
  '/api/v1/releases/{id}/runs': {
    get: secretKeyOperation({
      operationId: 'listReleaseRuns',
      tags: TAGS,
      summary: "A release's runs",
      description: 'Its runs, newest first: when, how many were asked, invited, failed (still in line) and left out by the capacity cap.',
      path: RELEASE_ID,
      query: RUNS_QUERY,
      ok: { status: 200, description: 'The runs.', schema: RELEASE_RUNS, example: { data: [RUN_EXAMPLE] } },
      errors: { 404: ['not_found'] },
    }),
  },
};
