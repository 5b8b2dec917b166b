import { KeysService } from '../keys/keys.service';
import { ProductsService } from '../products/products.service';
import { mode, MODE_PROBLEM, productMustExist } from './checks';
import { CliCommand } from './command';
import { withServices } from './services';

interface Options {
  product: string;
  mode: string;
}

export const keysCreate: CliCommand<Options> = {
  name: 'keys create',
  description: "another key pair for a product's mode (its other keys keep working)",
  options: [
    { flags: '--product <ID>', description: 'the product (prod_…)', required: true },
    { flags: '--mode <live|test>', description: 'which mode the keys see', required: MODE_PROBLEM },
  ],
  run: (options, config) => {
    const keyMode = mode(options.mode);
    return withServices(config, async (app) => {
      await productMustExist(app.get(ProductsService), options.product);
      const pair = await app.get(KeysService).createPair(options.product, keyMode);
      return { json: pair, text: `secret:      ${pair.secret}\npublishable: ${pair.publishable}` };
    });
  },
};
