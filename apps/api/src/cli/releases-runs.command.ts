import { ReleasesService } from '../releases/releases.service';
import { CliCommand, UsageError } from './command';
import { RELEASE_OPTION, releaseScope } from './release-checks';
import { withServices } from './services';

export const releasesRuns: CliCommand<{ release: string; limit?: string }> = {
  name: 'releases runs',
  description: "a release's runs, newest first: when, asked, invited, failed, left out by the capacity cap",
  options: [RELEASE_OPTION, { flags: '--limit <N>', description: 'how many, 1-100 (20 unless given)' }],
  run: ({ release: id, limit = '20' }, config) => {
    if (!/^\d{1,3}$/.test(limit) || Number(limit) < 1 || Number(limit) > 100) throw new UsageError('--limit must be a whole number from 1 to 100.');
    return withServices(config, async (app) => {
      const runs = await app.get(ReleasesService).runs(await releaseScope(app, id), id, Number(limit));
      const line = (run: (typeof runs.data)[number]) =>
        `${run.tickLocal ?? `run now at ${run.startedAt}`}  asked ${run.asked}, invited ${run.invited}, failed ${run.failed}, capped ${run.skippedForCapacity}${run.error ? `, stopped: ${run.error}` : ''}`;
      return { json: runs, text: runs.data.length ? runs.data.map(line).join('\n') : 'no runs yet' };
    });
  },
};
