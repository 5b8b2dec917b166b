import { admin, TEMPLATE_ENV } from './databases';
import { stopEmbedded } from './embedded-servers';

/** Drops the template and whatever copy a crashed test file left behind, then stops the embedded servers. */
export default async function globalTeardown(): Promise<void> {
  const template = process.env[TEMPLATE_ENV];
  if (template) {
    await admin(async (client) => {
      const { rows } = await client.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [`${template}%`]);
      for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    });
  }
  await stopEmbedded();
}
