import { Client, type Pool } from 'pg';

/** Where tests may create databases: the server of TEST_DATABASE_URL or DATABASE_URL (global-setup sets it when neither is). */
export function serverUrl(): string {
  const url = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL;
  if (!url) throw new Error('No database server: run the tests through jest (globalSetup starts one when DATABASE_URL is unset)');
  return url;
}

export function databaseUrl(name: string): string {
  const url = new URL(serverUrl());
  url.pathname = `/${name}`;
  return url.toString();
}

export async function admin<T>(work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: databaseUrl('postgres') });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * Ends a pool once its connections have closed. pool.end() resolves as soon as it has asked them to:
 * a DROP DATABASE … WITH (FORCE) right after it can end one first, with an error the pool passes on
 * as its own 'error' event, which nothing hears and which fails the test file.
 */
export async function endPool(pool: Pool): Promise<void> {
  let open = pool.totalCount;
  const closed = new Promise<void>((resolve) => {
    if (open === 0) resolve();
    pool.on('remove', () => --open === 0 && resolve());
  });
  await pool.end();
  await closed;
}

/** The migrated template every test file copies; named per run so that runs never meet. */
export const TEMPLATE_ENV = 'WAITLIST_TEST_TEMPLATE';
