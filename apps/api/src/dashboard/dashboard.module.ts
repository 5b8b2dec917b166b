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
import { BulkActions } from './entries/bulk-actions';
import { DashboardBulkController } from './entries/bulk.controller';
import { DashboardCookies } from './auth/cookies';
import { DashboardAuthModule } from './auth/dashboard-auth.module';
import { DashboardEntriesController } from './entries/entries.controller';
import { DashboardImportsController } from './imports/imports.controller';
import { DashboardKeysController } from './keys/keys.controller';
import { DashboardLoginHooksController } from './login-hooks/login-hooks.controller';
import { OverviewService } from './overview/overview.service';
import { DashboardProductsController } from './overview/products.controller';
import { DashboardReferralsController } from './entries/referrals.controller';
import { DashboardReleasesController } from './releases/releases.controller';
import { Replies } from './shared/replies';
import { DashboardSettingsController } from './settings/settings.controller';
import { DashboardSignInController } from './sign-in/sign-in.controller';
import { DashboardTemplatesController } from './templates/templates.controller';
import { DashboardUndeliverableController } from './entries/undeliverable.controller';
import { DashboardWebhooksController } from './webhooks/webhooks.controller';

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
