import { ProductsService } from '../products/products.service';
import { ReleasesService } from '../releases/releases.service';
import { mode, MODE_PROBLEM, productMustExist } from './checks';
import { CliCommand } from './command';
import { releaseLine } from './release-checks';
import { withServices } from './services';

interface Options {
  product: string;
  mode: string;
}

export const releasesList: CliCommand<Options> = {
  name: 'releases list',
  description: "a product mode's scheduled releases, each with its next run in its time zone",
  options: [
    { flags: '--product <ID>', description: 'the product (prod_…)', required: true },
    { flags: '--mode <live|test>', description: 'the live or the test line', required: MODE_PROBLEM },
  ],
  run: (options, config) => {
    const scope = { productId: options.product, mode: mode(options.mode) };
    return withServices(config, async (app) => {
      await productMustExist(app.get(ProductsService), scope.productId);
      const releases = await app.get(ReleasesService).list(scope);
      return { json: { data: releases }, text: releases.length ? releases.map(releaseLine).join('\n') : 'no releases' };
    });
  },
};
