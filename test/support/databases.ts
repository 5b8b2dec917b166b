import { Client } from 'pg';

/** Where tests may create databases: the server of DATABASE_URL, or the local default. */
export const SERVER_URL = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@localhost:5432/postgres';

export function databaseUrl(name: string): string {
  const url = new URL(SERVER_URL);
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

/** The migrated template every test file copies; named per run so that runs never meet. */
export const TEMPLATE_ENV = 'WAITLIST_TEST_TEMPLATE';
