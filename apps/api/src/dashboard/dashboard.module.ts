import { Module } from '@nestjs/common';
import { EntriesModule } from '../entries/entries.module';
import { InvitationsModule } from '../invitations/invitations.module';
import { KeysModule } from '../keys/keys.module';
import { LineModule } from '../line/line.module';
import { LoginHooksModule } from '../login-hooks/login-hooks.module';
import { ProductsModule } from '../products/products.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { DashboardCookies } from './cookies';
import { DashboardAuthModule } from './dashboard-auth.module';
import { DashboardEntriesController } from './entries.controller';
import { DashboardKeysController } from './keys.controller';
import { DashboardLoginHooksController } from './login-hooks.controller';
import { OverviewService } from './overview.service';
import { DashboardProductsController } from './products.controller';
import { Replies } from './replies';
import { DashboardSettingsController } from './settings.controller';
import { DashboardSignInController } from './sign-in.controller';
import { DashboardWebhooksController } from './webhooks.controller';

/** The team dashboard: a controller per section, over the same services as the API. */
@Module({
  imports: [DashboardAuthModule, KeysModule, EntriesModule, LineModule, InvitationsModule, ProductsModule, WebhooksModule, LoginHooksModule],
  controllers: [
    DashboardSignInController,
    DashboardProductsController,
    DashboardEntriesController,
    DashboardKeysController,
    DashboardWebhooksController,
    DashboardLoginHooksController,
    DashboardSettingsController,
  ],
  providers: [DashboardCookies, OverviewService, Replies],
})
export class DashboardModule {}
