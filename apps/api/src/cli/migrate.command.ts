import { checkDatabase, createDataSource, explainDatabaseError, MISSING_DATABASE, StartupError } from '@app/shared';
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
  await checkDatabase(url).catch((error: StartupError) => {
    if ((error.cause as { code?: string }).code !== MISSING_DATABASE) throw error;
    return createDatabase(url);
  });
  const dataSource = createDataSource(url);
  await dataSource.initialize();
  try {
    return (await dataSource.runMigrations({ transaction: 'each' })).map((migration) => migration.name);
  } finally {
    await dataSource.destroy();
  }
}

/** Creates the database of `url`, connected to the server's postgres database as the same user. */
async function createDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  target.pathname = '/postgres';
  const admin = new Client({ connectionString: target.toString() });
  try {
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
  } catch (error) {
    throw new StartupError(explainDatabaseError(error, url) ?? (error as Error).message);
  } finally {
    await admin.end().catch(() => undefined);
  }
}
