import { createDataSource } from '@app/shared';
import { randomBytes } from 'node:crypto';
import { ensureDebianTools } from './debian-tools';
import { admin, databaseUrl, TEMPLATE_ENV } from './databases';
import { startEmbeddedWhereUnset } from './embedded-servers';

/** Migrates one template database per run; each test file then copies it (CREATE DATABASE … TEMPLATE). */
export default async function globalSetup(): Promise<void> {
  ensureDebianTools();
  await startEmbeddedWhereUnset();
  const name = `waitlist_test_${randomBytes(4).toString('hex')}`;
  await admin((client) => client.query(`CREATE DATABASE ${name}`));
  const dataSource = createDataSource(databaseUrl(name));
  await dataSource.initialize();
  await dataSource.runMigrations();
  await dataSource.destroy();
  process.env[TEMPLATE_ENV] = name;
}
