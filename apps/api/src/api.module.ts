import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig, ConfigModule, DatabaseModule } from '@app/shared';
import { ChallengesModule } from './challenges/challenges.module';
import { CommonModule } from './common/common.module';
import { DashboardModule } from './dashboard/dashboard.module';
import { DevMailModule } from './dev-mail/dev-mail.module';
import { EmbedModule } from './embed/embed.module';
import { EntriesModule } from './entries/entries.module';
import { HealthModule } from './health/health.module';
import { ImportsModule } from './imports/imports.module';
import { InvitationsModule } from './invitations/invitations.module';
import { LeaderboardModule } from './leaderboard/leaderboard.module';
import { LineModule } from './line/line.module';
import { LoginHooksModule } from './login-hooks/login-hooks.module';
import { MailFeedbackModule } from './mail-feedback/mail-feedback.module';
import { MaintenanceModule } from './maintenance/maintenance.module';
import { OpenApiModule } from './openapi/openapi.module';
import { PersonalDataModule } from './personal-data/personal-data.module';
import { ReferralsModule } from './referrals/referrals.module';
import { ReleaseWorkerModule } from './releases/release-worker.module';
import { ReleasesModule } from './releases/releases.module';
import { SignupsModule } from './signups/signups.module';

/** The api app: one module per feature. */
@Module({})
export class ApiModule {
  static register(config: AppConfig): DynamicModule {
    return {
      module: ApiModule,
      imports: [
        ConfigModule.forRoot(config),
        DatabaseModule,
        CommonModule,
        HealthModule,
        ChallengesModule,
        SignupsModule,
        EmbedModule,
        PersonalDataModule,
        EntriesModule,
        ImportsModule,
        LineModule,
        ReferralsModule,
        LeaderboardModule,
        InvitationsModule,
        ReleasesModule,
        ReleaseWorkerModule,
        OpenApiModule,
        LoginHooksModule,
        MailFeedbackModule,
        DashboardModule,
        MaintenanceModule,
        MailFeedbackModule,
        ...(config.SMTP_URL ? [] : [DevMailModule]),
      ],
    };
  }
}
