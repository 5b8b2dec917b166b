import { ReleasesService } from '../releases/releases.service';
import { CliCommand } from './command';
import { RELEASE_OPTION, releaseScope } from './release-checks';
import { withServices } from './services';

export const releasesDelete: CliCommand<{ release: string }> = {
  name: 'releases delete',
  description: 'deletes a release and its runs; the entries it invited stay invited',
  options: [RELEASE_OPTION],
  run: ({ release: id }, config) =>
    withServices(config, async (app) => {
      await app.get(ReleasesService).remove(await releaseScope(app, id), id);
      return { json: { id, deleted: true }, text: `release ${id} deleted` };
    }),
};
