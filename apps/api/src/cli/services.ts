import { INestApplicationContext, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppConfig, checkDatabase, ConfigModule, DatabaseModule } from '@app/shared';
import { CommonModule } from '../common/common.module';
import { DashboardAuthModule } from '../dashboard/auth/dashboard-auth.module';
import { ImportsModule } from '../imports/imports.module';
import { KeysModule } from '../keys/keys.module';
import { ProductsModule } from '../products/products.module';
import { ReleasesModule } from '../releases/releases.module';
import { WebhooksModule } from '../webhooks/webhooks.module';

@Module({})
class CliModule {}

/**
 * Runs `work` with the api's services the commands use, without HTTP, and closes them after. Nest logs
 * nothing: stdout is the command's answer alone.
 */
export async function withServices<T>(config: AppConfig, work: (app: INestApplicationContext) => Promise<T>): Promise<T> {
  await checkDatabase(config.DATABASE_URL);
  const app = await NestFactory.createApplicationContext(
    {
      module: CliModule,
      imports: [ConfigModule.forRoot(config), DatabaseModule, CommonModule, KeysModule, ProductsModule, WebhooksModule, DashboardAuthModule, ImportsModule, ReleasesModule],
    },
    { logger: false },
  );
  try {
    return await work(app);
  } finally {
    await app.close();
  }
}
