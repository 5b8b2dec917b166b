import { KeysService } from '../keys/keys.service';
import { CliCommand, UsageError } from './command';
import { withServices } from './services';

interface Options {
  key: string;
}

export const keysRevoke: CliCommand<Options> = {
  name: 'keys revoke',
  description: 'revokes a secret key: it answers 401 from then on',
  options: [{ flags: '--key <sk_…>', description: 'the secret key', required: true }],
  run: (options, config) =>
    withServices(config, async (app) => {
      if (!(await app.get(KeysService).revoke(options.key))) throw new UsageError('No such secret key in use.');
      return { json: { revoked: true }, text: 'Revoked; the key answers 401 from now on.' };
    }),
};
