import { ProductsService } from '../products/products.service';
import { WebhooksService } from '../webhooks/webhooks.service';
import { mode, MODE_PROBLEM, productMustExist, signatureFormat } from './checks';
import { CliCommand } from './command';
import { withServices } from './services';

interface Options {
  product: string;
  mode: string;
  url: string;
  events?: string;
  signature?: string;
}

export const webhooksCreate: CliCommand<Options> = {
  name: 'webhooks create',
  description: 'a webhook endpoint; its signing secret is shown once',
  options: [
    { flags: '--product <ID>', description: 'the product (prod_…)', required: true },
    { flags: '--mode <live|test>', description: "whose events it gets: the live or the test mode's", required: MODE_PROBLEM },
    { flags: '--url <U>', description: 'where deliveries go: https and a public address', required: true },
    { flags: '--events <t1,t2>', description: 'the event types it wants, comma-separated (default: every entry event)' },
    {
      flags: '--signature <service|standard>',
      description:
        'how deliveries are signed, for good: service, our Service-Signature header (default), or standard, the ' +
        'Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature) that its libraries verify',
    },
  ],
  run: (options, config) => {
    const endpoint = {
      productId: options.product,
      mode: mode(options.mode),
      url: options.url,
      events: options.events?.split(',').map((type) => type.trim()),
      signatureFormat: options.signature === undefined ? undefined : signatureFormat(options.signature),
    };
    return withServices(config, async (app) => {
      await productMustExist(app.get(ProductsService), endpoint.productId);
      const created = await app.get(WebhooksService).create(endpoint);
      return { json: created, text: `endpoint: ${created.id}\nsecret:   ${created.secret}   (shown once)` };
    });
  },
};
