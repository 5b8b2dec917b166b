import { Mode, MODES } from '@app/shared';
import { ProductsService, textLine } from '../products/products.service';
import { CliCommand, UsageError } from './command';
import { withServices } from './services';

interface Options {
  name: string;
  inviteUrl?: string;
  signupUrl?: string;
  referralPlaces?: string;
}

export const productsCreate: CliCommand<Options> = {
  name: 'products create',
  description: 'a product with a live and a test key pair',
  options: [
    { flags: '--name <N>', description: 'its name', required: true },
    { flags: '--invite-url <U>', description: "where invitation links go (the code is added as ?invite=); without it, the service's own invitation page" },
    { flags: '--signup-url <U>', description: "the product's own sign-up page, for referral links" },
    { flags: '--referral-places <K>', description: 'places a confirmed referral moves its referrer up (default 1)' },
  ],
  run: (options, config) => {
    const product = {
      name: productName(options.name),
      inviteUrl: optionalUrl(options.inviteUrl, '--invite-url'),
      signupUrl: optionalUrl(options.signupUrl, '--signup-url'),
      referralPlaces: options.referralPlaces === undefined ? undefined : wholeNumber(options.referralPlaces),
    };
    return withServices(config, async (app) => {
      const created = await app.get(ProductsService).create(product);
      return { json: created, text: describeProduct(created.id, created.keys) };
    });
  },
};

/** A product's id and keys as the text output shows them (products create, demo). */
export function describeProduct(id: string, keys: Record<Mode, { secret: string; publishable: string }>): string {
  return [
    `product:          ${id}`,
    ...MODES.flatMap((m) => [`${m} secret:      ${keys[m].secret}`, `${m} publishable: ${keys[m].publishable}`]),
  ].join('\n');
}

/** The dashboard's rule for a product's name, in the CLI's words. */
function productName(value: string): string {
  const result = textLine('--name').safeParse(value);
  if (!result.success) throw new UsageError(`${result.error.issues[0].message}.`);
  return result.data;
}

function optionalUrl(value: string | undefined, flag: string): string | undefined {
  if (value !== undefined && !/^https?:\/\//.test(value)) throw new UsageError(`${flag} must be an http(s) URL.`);
  if (value !== undefined && !URL.canParse(value)) throw new UsageError(`${flag} is not a valid URL.`);
  return value;
}

function wholeNumber(value: string): number {
  if (!/^\d{1,4}$/.test(value)) throw new UsageError('--referral-places must be a whole number from 0 to 9999.');
  return Number(value);
}
