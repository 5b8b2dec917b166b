import { kindOf, KeysService } from '../keys/keys.service';
import { CliCommand, UsageError } from './command';
import { withServices } from './services';

interface Options {
  key: string;
  pair?: boolean;
}

export const keysRevoke: CliCommand<Options> = {
  name: 'keys revoke',
  description: 'revokes a secret or publishable key, or with --pair both keys of its pair: they answer 401 from then on',
  options: [
    { flags: '--key <sk_…|pk_…>', description: 'the secret or publishable key', required: true },
    { flags: '--pair', description: 'also revokes the other key of its pair (made with it by products create or keys create)' },
  ],
  run: (options, config) => {
    const kind = kindOf(options.key);
    if (!kind) throw new UsageError('--key must be a secret key (sk_…) or a publishable key (pk_…).');
    return withServices(config, async (app) => {
      const kinds = await app.get(KeysService).revoke(options.key, { pair: options.pair === true });
      if (!kinds.length) throw new UsageError(`No such ${kind} key in use.`);
      const text =
        kinds.length === 2
          ? 'Revoked both keys of the pair; they answer 401 from now on.'
          : `Revoked; the key answers 401 from now on.${options.pair ? ' The other key of its pair was revoked already.' : ''}`;
      return { json: { revoked: true, kinds }, text };
    });
  },
};
