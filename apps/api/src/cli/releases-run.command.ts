import { ReleasesService } from '../releases/releases.service';
import { CliCommand } from './command';
import { RELEASE_OPTION, releaseScope } from './release-checks';
import { withServices } from './services';

export const releasesRun: CliCommand<{ release: string }> = {
  name: 'releases run',
  description: 'runs a release now, beside its schedule, and prints the run once its mails were settled (the mailer must be running)',
  options: [RELEASE_OPTION],
  run: ({ release: id }, config) =>
    withServices(config, async (app) => {
      const run = await app.get(ReleasesService).runNow(await releaseScope(app, id), id);
      return {
        json: run,
        text: `run ${run.id}: asked ${run.asked}, invited ${run.invited}, failed ${run.failed} (still in line), left out by the capacity cap ${run.skippedForCapacity}${run.error ? `, stopped: ${run.error}` : ''}`,
      };
    }),
};
