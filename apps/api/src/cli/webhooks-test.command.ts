import { WebhooksService } from '../webhooks/webhooks.service';
import { CliCommand } from './command';
import { withServices } from './services';

interface Options {
  endpoint: string;
}

export const webhooksTest: CliCommand<Options> = {
  name: 'webhooks test',
  description: 'sends webhook.test to one endpoint, whatever event types it chose',
  options: [{ flags: '--endpoint <ID>', description: 'the endpoint (we_…)', required: true }],
  run: (options, config) =>
    withServices(config, async (app) => {
      const sent = await app.get(WebhooksService).sendTest(options.endpoint);
      return { json: sent, text: `webhook.test ${sent.eventId} is on its way.` };
    }),
};
