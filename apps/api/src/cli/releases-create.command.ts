import { ProductsService } from '../products/products.service';
import { NEW_RELEASE } from '../releases/releases.dto';
import { ReleasesService } from '../releases/releases.service';
import { mode, MODE_PROBLEM, productMustExist } from './checks';
import { CliCommand } from './command';
import { countFlag, RELEASE_FLAGS, releaseFlags, releaseLine } from './release-checks';
import { withServices } from './services';

interface Options {
  product: string;
  mode: string;
  count: string;
  pattern: string;
  timeZone: string;
  paused?: boolean;
}

export const releasesCreate: CliCommand<Options> = {
  name: 'releases create',
  description: 'a release: invite N from the front of the line at every tick of a cron expression in a time zone, once across every replica',
  options: [
    { flags: '--product <ID>', description: 'the product (prod_…)', required: true },
    { flags: '--mode <live|test>', description: 'the live or the test line', required: MODE_PROBLEM },
    { flags: '--count <N>', description: 'how many each run invites, 1-1000 (fewer when the capacity cap leaves fewer places)', required: true },
    { flags: '--pattern <CRON>', description: "a cron expression, five fields ('0 9 * * 1': Mondays at 9), or six with seconds first", required: true },
    { flags: '--time-zone <TZ>', description: 'the IANA time zone it is read in, such as Europe/Berlin', required: true },
    { flags: '--paused', description: 'made paused: it runs once resumed (releases update --resume)' },
  ],
  run: ({ product, mode: modeFlag, count, ...rest }, config) => {
    const scope = { productId: product, mode: mode(modeFlag) };
    const input = releaseFlags(NEW_RELEASE, { ...rest, count: countFlag(count) }, RELEASE_FLAGS);
    return withServices(config, async (app) => {
      await productMustExist(app.get(ProductsService), scope.productId);
      const release = await app.get(ReleasesService).create(scope, input);
      return { json: release, text: releaseLine(release) };
    });
  },
};
