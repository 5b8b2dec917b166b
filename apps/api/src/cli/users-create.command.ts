import { DashboardAuthService } from '../dashboard/auth/dashboard-auth.service';
import { ProductsService } from '../products/products.service';
import { productMustExist } from './checks';
import { CliCommand, UsageError } from './command';
import { withServices } from './services';

interface Options {
  email: string;
  password: string;
  product?: string;
  operator?: boolean;
}

export const usersCreate: CliCommand<Options> = {
  name: 'users create',
  description: "a dashboard user in that product's team; run again with another product to add a team",
  options: [
    { flags: '--email <E>', description: 'their address, which they sign in with', required: true },
    { flags: '--password <P>', description: 'at least 12 characters; an existing user keeps theirs', required: true },
    { flags: '--product <ID>', description: 'the product whose team they join (optional with --operator)' },
    { flags: '--operator', description: "also sees Bull Board (every product's jobs) and may retry and clean jobs" },
  ],
  run: async (options, config) => {
    // An operator may belong to no team: Bull Board is not a product's page.
    if (!options.product && !options.operator) throw new UsageError('--product is required, unless --operator makes a user of no team.');
    const productId = options.product || null;
    return withServices(config, async (app) => {
      if (productId !== null) await productMustExist(app.get(ProductsService), productId);
      const user = await app.get(DashboardAuthService).createUser(options.email, options.password, productId, { operator: options.operator });
      const team = productId ? ` to the team of ${productId}` : '';
      return { json: user, text: `${user.created ? 'Created' : 'Updated'} ${options.email}${team}${user.operator ? ', an operator' : ''}.` };
    });
  },
};
