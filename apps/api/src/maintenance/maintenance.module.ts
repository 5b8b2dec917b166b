import { Module } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import { MaintenanceService } from './maintenance.service';

/** The scheduled purges, once per MAINTENANCE_INTERVAL across replicas. */
@Module({ imports: [ScheduleModule.forRoot()], providers: [MaintenanceService] })
export class MaintenanceModule {}
