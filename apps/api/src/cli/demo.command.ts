import { newToken, Product } from '@app/shared';
import { getDataSourceToken } from '@nestjs/typeorm';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { DataSource } from 'typeorm';
import { DashboardAuthService } from '../dashboard/auth/dashboard-auth.service';
import { CreatedProduct, ProductsService } from '../products/products.service';
import { CliCommand } from './command';
import { describeProduct } from './products-create.command';
import { withServices } from './services';

interface Options {
  keysFile: string;
}

type Demo = CreatedProduct & { dashboard?: { email: string; password: string; overview?: string } };

/**
 * npm start's demo product and its dashboard user: created once; the keys and the password are kept in
 * a local file so that later starts can show them.
 */
export const demo: CliCommand<Options> = {
  name: 'demo',
  description: 'the demo product of npm start and its dashboard user, created once',
  options: [{ flags: '--keys-file <F>', description: 'where its keys and password are kept (and read on later runs)', required: true }],
  run: (options, config) =>
    withServices(config, async (app) => {
      const file = options.keysFile;
      let saved: Demo | undefined = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Demo) : undefined;
      if (!saved || !(await app.get<DataSource>(getDataSourceToken()).getRepository(Product).existsBy({ id: saved.id }))) {
        saved = await app.get(ProductsService).create({ name: 'Demo', referralPlaces: 1, referralProtection: 'standard' });
      }
      if (!saved.dashboard) {
        // One user per demo product, so that a product made anew never meets an older user's password. The
        // newcomer runs the whole service, so they are its operator too (Bull Board).
        saved.dashboard = { email: `demo-${saved.id.slice(-8)}@example.com`, password: newToken().slice(0, 20) };
        await app.get(DashboardAuthService).createUser(saved.dashboard.email, saved.dashboard.password, saved.id, { operator: true });
      }
      // Its sample sign-ups (npm start's Try it) use the test keys, so its overview opens in test mode.
      saved.dashboard.overview = `/dashboard/${saved.id}/test/overview`;
      writeFileSync(file, JSON.stringify(saved, null, 2), { mode: 0o600 });
      return { json: saved, text: `${describeProduct(saved.id, saved.keys)}\ndashboard:        ${saved.dashboard.overview}` };
    }),
};
