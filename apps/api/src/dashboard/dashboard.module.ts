import { Module } from '@nestjs/common';
import { EntriesModule } from '../entries/entries.module';
import { ImportsModule } from '../imports/imports.module';
import { InvitationsModule } from '../invitations/invitations.module';
import { KeysModule } from '../keys/keys.module';
import { LeaderboardModule } from '../leaderboard/leaderboard.module';
import { LineModule } from '../line/line.module';
import { LoginHooksModule } from '../login-hooks/login-hooks.module';
import { PersonalDataModule } from '../personal-data/personal-data.module';
import { MailFeedbackModule } from '../mail-feedback/mail-feedback.module';
import { ProductsModule } from '../products/products.module';
import { ReferralsModule } from '../referrals/referrals.module';
import { ReleasesModule } from '../releases/releases.module';
import { TemplatesModule } from '../templates/templates.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { BulkActions } from './bulk-actions';
import { DashboardBulkController } from './bulk.controller';
import { DashboardCookies } from './cookies';
import { DashboardAuthModule } from './dashboard-auth.module';
import { DashboardEntriesController } from './entries.controller';
import { DashboardImportsController } from './imports.controller';
import { DashboardKeysController } from './keys.controller';
import { DashboardLoginHooksController } from './login-hooks.controller';
import { OverviewService } from './overview.service';
import { DashboardProductsController } from './products.controller';
import { DashboardReferralsController } from './referrals.controller';
import { DashboardReleasesController } from './releases.controller';
import { Replies } from './replies';
import { DashboardSettingsController } from './settings.controller';
import { DashboardSignInController } from './sign-in.controller';
import { DashboardTemplatesController } from './templates.controller';
import { DashboardUndeliverableController } from './undeliverable.controller';
import { DashboardWebhooksController } from './webhooks.controller';

/** The team dashboard: a controller per section, over the same services as the API. */
@Module({
  imports: [DashboardAuthModule, KeysModule, EntriesModule, ImportsModule, LineModule, InvitationsModule, LeaderboardModule, ProductsModule, ReferralsModule, ReleasesModule, WebhooksModule, LoginHooksModule, TemplatesModule, MailFeedbackModule, PersonalDataModule],
  controllers: [
    DashboardSignInController,
    DashboardProductsController,
    DashboardEntriesController,
    DashboardBulkController,
    DashboardImportsController,
    DashboardReferralsController,
    DashboardReleasesController,
    DashboardKeysController,
    DashboardWebhooksController,
    DashboardLoginHooksController,
    DashboardSettingsController,
    DashboardTemplatesController,
    DashboardUndeliverableController,
  ],
  providers: [BulkActions, DashboardCookies, OverviewService, Replies],
})
export class DashboardModule {}
