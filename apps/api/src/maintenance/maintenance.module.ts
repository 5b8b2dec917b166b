import { Module } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import { ClaimWindowModule } from '../claim-window/claim-window.module';
import { ReferralsModule } from '../referrals/referrals.module';
import { ReleasesModule } from '../releases/releases.module';
import { MaintenanceService } from './maintenance.service';

/** The scheduled purges, the end of referrals' waiting periods, the claim windows' timers and the releases' reconcile, once per MAINTENANCE_INTERVAL across replicas. */
@Module({ imports: [ScheduleModule.forRoot(), ReferralsModule, ClaimWindowModule, ReleasesModule], providers: [MaintenanceService] })
export class MaintenanceModule {}
