import { RELEASE_CHANGES } from '../releases/releases.dto';
import { ReleasesService } from '../releases/releases.service';
import { CliCommand, UsageError } from './command';
import { countFlag, RELEASE_FLAGS, RELEASE_OPTION, releaseFlags, releaseLine, releaseScope } from './release-checks';
import { withServices } from './services';

interface Options {
  release: string;
  count?: string;
  pattern?: string;
  timeZone?: string;
  pause?: boolean;
  resume?: boolean;
}

export const releasesUpdate: CliCommand<Options> = {
  name: 'releases update',
  description: 'changes a release: the flags given; --pause stops its runs, --resume starts them again from the next tick',
  options: [
    RELEASE_OPTION,
    { flags: '--count <N>', description: 'how many each run invites, 1-1000' },
    { flags: '--pattern <CRON>', description: 'a new cron expression, read in the release\'s time zone' },
    { flags: '--time-zone <TZ>', description: 'a new IANA time zone' },
    { flags: '--pause', description: 'pause it' },
    { flags: '--resume', description: 'resume it; a tick missed while paused is not made up' },
  ],
  run: ({ release: id, count, pause, resume, ...rest }, config) => {
    if (pause && resume) throw new UsageError('Give --pause or --resume, not both.');
    const paused = pause ? true : resume ? false : undefined;
    const changes = releaseFlags(RELEASE_CHANGES, { ...rest, count: countFlag(count), paused }, RELEASE_FLAGS);
    if (Object.keys(changes).length === 0) throw new UsageError('Name at least one change.');
    return withServices(config, async (app) => {
      const release = await app.get(ReleasesService).update(await releaseScope(app, id), id, changes);
      return { json: release, text: releaseLine(release) };
    });
  },
};
