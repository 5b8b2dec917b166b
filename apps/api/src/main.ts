import '@app/shared/startup/check-node';
import 'reflect-metadata';
import { checkDependencies, exitWithReason, explainListenError, listenHost, loadConfig, StartupError } from '@app/shared';
import { createApiApp } from './app';

async function main(): Promise<void> {
  const config = loadConfig();
  await checkDependencies(config);
  const app = await createApiApp(config);
  await app.listen(config.PORT, listenHost(config.HOST)).catch(async (error: unknown) => {
    await app.close();
    throw new StartupError(explainListenError(error, config.PORT, 'PORT') ?? (error as Error).message);
  });
}

main().catch(exitWithReason);
