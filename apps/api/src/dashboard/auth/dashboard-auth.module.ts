import { Module } from '@nestjs/common';
import { DashboardAuthService } from './dashboard-auth.service';

/** Dashboard users, teams and sessions; the CLI makes users through it too. */
@Module({ providers: [DashboardAuthService], exports: [DashboardAuthService] })
export class DashboardAuthModule {}
