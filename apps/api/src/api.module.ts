import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { ScheduleModule } from '@nestjs/schedule';
import { AppConfig, Clock, ConfigModule, DatabaseModule, RedisClient } from '@app/shared';
import { KeysService } from './auth/keys.service';
import { ErrorFilter } from './common/error.filter';
import { RateLimits } from './common/rate-limits';
import { DashboardAuthService } from './dashboard/dashboard-auth.service';
import { DashboardController } from './dashboard/dashboard.controller';
import { DevMailController } from './dev-mail/dev-mail.controller';
import { EntriesController } from './entries/entries.controller';
import { EntriesService } from './entries/entries.service';
import { HealthController } from './health/health.controller';
import { InvitationsController } from './invitations/invitations.controller';
import { InvitationMailer } from './invitations/invitation-mailer';
import { InvitationsService } from './invitations/invitations.service';
import { MaintenanceService } from './maintenance/maintenance.service';
import { ProductsService } from './products/products.service';
import { PagesController } from './signups/pages.controller';
import { SignupsController } from './signups/signups.controller';
import { SignupsService } from './signups/signups.service';
import { WebhooksService } from './webhooks/webhooks.service';

@Module({})
export class ApiModule {
  static register(config: AppConfig): DynamicModule {
    return {
      module: ApiModule,
      imports: [ConfigModule.forRoot(config), DatabaseModule, ScheduleModule.forRoot()],
      controllers: [
        HealthController,
        EntriesController,
        InvitationsController,
        SignupsController,
        PagesController,
        DashboardController,
        ...(config.SMTP_URL ? [] : [DevMailController]),
      ],
      providers: [
        { provide: APP_FILTER, useClass: ErrorFilter },
        Clock,
        RedisClient,
        RateLimits,
        KeysService,
        ProductsService,
        EntriesService,
        InvitationMailer,
        InvitationsService,
        SignupsService,
        MaintenanceService,
        WebhooksService,
        DashboardAuthService,
      ],
    };
  }
}
