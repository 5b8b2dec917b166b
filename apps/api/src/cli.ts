import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  AppConfig,
  ConfigModule,
  createDataSource,
  DatabaseModule,
  loadConfig,
  MODES,
  Mode,
  newToken,
  Product,
} from '@app/shared';
import { getDataSourceToken } from '@nestjs/typeorm';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { CommonModule } from './common/common.module';
import { DashboardAuthModule } from './dashboard/dashboard-auth.module';
import { DashboardAuthService } from './dashboard/dashboard-auth.service';
import { KeysModule } from './keys/keys.module';
import { KeysService } from './keys/keys.service';
import { ProductsModule } from './products/products.module';
import { CreatedProduct, ProductsService } from './products/products.service';
import { WebhooksModule } from './webhooks/webhooks.module';
import { WebhooksService } from './webhooks/webhooks.service';

const USAGE = `Usage: npm run --silent cli -- <command> [options] [--json]

  migrate                                   apply pending migrations (creates the database if missing)
  products create --name N [--invite-url U] [--signup-url U] [--referral-places K]
  keys create --product ID --mode live|test
  keys revoke --key sk_…
  webhooks create --product ID --mode live|test --url U [--events t1,t2]   (no --events: all entry events)
  webhooks test --endpoint ID               send webhook.test to one endpoint
  users create --email E --password P [--product ID] [--operator]
                                            a dashboard user in that product's team; --operator: also
                                            sees Bull Board (every product's jobs), --product optional
  demo --keys-file F                        the demo product of npm start, created once`;

class UsageError extends Error {}

@Module({})
class CliModule {}

/** Runs one command; what it returns is printed (as JSON with --json). */
async function run(args: string[], config: AppConfig): Promise<{ json: object; text: string }> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      json: { type: 'boolean' },
      name: { type: 'string' },
      'invite-url': { type: 'string' },
      'signup-url': { type: 'string' },
      'referral-places': { type: 'string' },
      product: { type: 'string' },
      mode: { type: 'string' },
      key: { type: 'string' },
      'keys-file': { type: 'string' },
      url: { type: 'string' },
      events: { type: 'string' },
      endpoint: { type: 'string' },
      email: { type: 'string' },
      password: { type: 'string' },
      operator: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return { json: { usage: USAGE }, text: USAGE };
  const command = positionals.join(' ');
  if (command === 'migrate') {
    const applied = await migrate(config.DATABASE_URL);
    return { json: { applied }, text: applied.length ? `Applied ${applied.join(', ')}` : 'The database is up to date.' };
  }
  const known = ['products create', 'keys create', 'keys revoke', 'webhooks create', 'webhooks test', 'users create', 'demo'];
  if (!known.includes(command)) throw new UsageError(command ? `Unknown command: ${command}` : 'No command given.');

  const app = await NestFactory.createApplicationContext(
    {
      module: CliModule,
      imports: [ConfigModule.forRoot(config), DatabaseModule, CommonModule, KeysModule, ProductsModule, WebhooksModule, DashboardAuthModule],
    },
    { logger: false },
  );
  try {
    const products = app.get(ProductsService);
    const keys = app.get(KeysService);
    switch (command) {
      case 'products create': {
        const created = await products.create({
          name: required(values.name, '--name'),
          inviteUrl: optionalUrl(values['invite-url'], '--invite-url'),
          signupUrl: optionalUrl(values['signup-url'], '--signup-url'),
          referralPlaces: values['referral-places'] === undefined ? undefined : wholeNumber(values['referral-places']),
        });
        return { json: created, text: describeProduct(created.id, created.keys) };
      }
      case 'keys create': {
        const productId = required(values.product, '--product');
        const keyMode = mode(values.mode);
        if (!(await products.find(productId))) throw new UsageError(`No product ${productId}.`);
        const pair = await keys.createPair(productId, keyMode);
        return { json: pair, text: `secret:      ${pair.secret}\npublishable: ${pair.publishable}` };
      }
      case 'keys revoke': {
        if (!(await keys.revoke(required(values.key, '--key')))) throw new UsageError('No such secret key in use.');
        return { json: { revoked: true }, text: 'Revoked; the key answers 401 from now on.' };
      }
      case 'webhooks create': {
        const productId = required(values.product, '--product');
        const endpointMode = mode(values.mode);
        if (!(await products.find(productId))) throw new UsageError(`No product ${productId}.`);
        const created = await app.get(WebhooksService).create({
          productId,
          mode: endpointMode,
          url: required(values.url, '--url'),
          events: values.events?.split(',').map((type) => type.trim()),
        });
        return { json: created, text: `endpoint: ${created.id}\nsecret:   ${created.secret}   (shown once)` };
      }
      case 'webhooks test': {
        const sent = await app.get(WebhooksService).sendTest(required(values.endpoint, '--endpoint'));
        return { json: sent, text: `webhook.test ${sent.eventId} is on its way.` };
      }
      case 'users create': {
        // An operator may belong to no team: Bull Board is not a product's page.
        if (!values.product && !values.operator) throw new UsageError('--product is required, unless --operator makes a user of no team.');
        const productId = values.product || null;
        if (productId !== null && !(await products.find(productId))) throw new UsageError(`No product ${productId}.`);
        const email = required(values.email, '--email');
        const user = await app.get(DashboardAuthService).createUser(email, required(values.password, '--password'), productId, { operator: values.operator });
        const team = productId ? ` to the team of ${productId}` : '';
        return { json: user, text: `${user.created ? 'Created' : 'Updated'} ${email}${team}${user.operator ? ', an operator' : ''}.` };
      }
      default:
        return await demo(app.get<DataSource>(getDataSourceToken()), products, app.get(DashboardAuthService), required(values['keys-file'], '--keys-file'));
    }
  } finally {
    await app.close();
  }
}

/** Applies pending migrations, creating the database first when it does not exist yet. */
async function migrate(url: string): Promise<string[]> {
  const dataSource = createDataSource(url);
  try {
    await dataSource.initialize();
  } catch (error) {
    if ((error as { code?: string }).code !== '3D000') throw error;
    const target = new URL(url);
    const name = decodeURIComponent(target.pathname.slice(1));
    target.pathname = '/postgres';
    const admin = new Client({ connectionString: target.toString() });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`).finally(() => admin.end());
    await dataSource.initialize();
  }
  try {
    return (await dataSource.runMigrations({ transaction: 'each' })).map((migration) => migration.name);
  } finally {
    await dataSource.destroy();
  }
}

/**
 * npm start's demo product and its dashboard user: created once; the keys and the password are kept in
 * a local file so that later starts can show them.
 */
async function demo(db: DataSource, products: ProductsService, auth: DashboardAuthService, file: string): Promise<{ json: object; text: string }> {
  type Demo = CreatedProduct & { dashboard?: { email: string; password: string } };
  let saved: Demo | undefined = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Demo) : undefined;
  if (!saved || !(await db.getRepository(Product).existsBy({ id: saved.id }))) saved = await products.create({ name: 'Demo', referralPlaces: 1 });
  if (!saved.dashboard) {
    // One user per demo product, so that a product made anew never meets an older user's password. The
    // newcomer runs the whole service, so they are its operator too (Bull Board).
    saved.dashboard = { email: `demo-${saved.id.slice(-8)}@example.com`, password: newToken().slice(0, 20) };
    await auth.createUser(saved.dashboard.email, saved.dashboard.password, saved.id, { operator: true });
  }
  writeFileSync(file, JSON.stringify(saved, null, 2), { mode: 0o600 });
  return { json: saved, text: describeProduct(saved.id, saved.keys) };
}

function describeProduct(id: string, keys: Record<Mode, { secret: string; publishable: string }>): string {
  return [
    `product:          ${id}`,
    ...MODES.flatMap((m) => [`${m} secret:      ${keys[m].secret}`, `${m} publishable: ${keys[m].publishable}`]),
  ].join('\n');
}

function required(value: string | undefined, flag: string): string {
  if (!value) throw new UsageError(`${flag} is required.`);
  return value;
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

function mode(value: string | undefined): Mode {
  if (!MODES.includes(value as Mode)) throw new UsageError('--mode must be live or test.');
  return value as Mode;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  try {
    const result = await run(args, loadConfig());
    process.stdout.write(`${args.includes('--json') ? JSON.stringify(result.json) : result.text}\n`);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${error instanceof UsageError ? `\n${USAGE}\n` : ''}`);
    process.exitCode = 1;
  }
}

void main();
