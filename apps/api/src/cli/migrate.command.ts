import { createDataSource } from '@app/shared';
import { Client } from 'pg';
import { CliCommand } from './command';

export const migrate: CliCommand<object> = {
  name: 'migrate',
  description: 'applies pending migrations (creates the database if missing); safe to run again',
  options: [],
  run: async (_options, config) => {
    const applied = await applyMigrations(config.DATABASE_URL);
    return { json: { applied }, text: applied.length ? `Applied ${applied.join(', ')}` : 'The database is up to date.' };
  },
};

/** Applies pending migrations, creating the database first when it does not exist yet. */
async function applyMigrations(url: string): Promise<string[]> {
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
