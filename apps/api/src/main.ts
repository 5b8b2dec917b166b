import 'reflect-metadata';
import { loadConfig } from '@app/shared';
import { createApiApp } from './app';

async function main(): Promise<void> {
  const config = loadConfig();
  const app = await createApiApp(config);
  await app.listen(config.PORT, '0.0.0.0');
}

main().catch((error: Error) => {
  console.error(error.message);
  process.exit(1);
});
