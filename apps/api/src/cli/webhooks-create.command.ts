import { ProductsService } from '../products/products.service';
import { WebhooksService } from '../webhooks/webhooks.service';
import { mode, MODE_PROBLEM, productMustExist } from './checks';
import { CliCommand } from './command';
import { withServices } from './services';

interface Options {
  product: string;
  mode: string;
  url: string;
  events?: string;
}

export const webhooksCreate: CliCommand<Options> = {
  name: 'webhooks create',
  description: 'a webhook endpoint; its signing secret is shown once',
  options: [
    { flags: '--product <ID>', description: 'the product (prod_…)', required: true },
    { flags: '--mode <live|test>', description: "whose events it gets: the live or the test mode's", required: MODE_PROBLEM },
    { flags: '--url <U>', description: 'where deliveries go: https and a public address', required: true },
    { flags: '--events <t1,t2>', description: 'the event types it wants, comma-separated (default: every entry event)' },
  ],
  run: (options, config) => {
    const endpoint = {
      productId: options.product,
      mode: mode(options.mode),
      url: options.url,
      events: options.events?.split(',').map((type) => type.trim()),
    };
    return withServices(config, async (app) => {
      await productMustExist(app.get(ProductsService), endpoint.productId);
      const created = await app.get(WebhooksService).create(endpoint);
      return { json: created, text: `endpoint: ${created.id}\nsecret:   ${created.secret}   (shown once)` };
    });
  },
};
