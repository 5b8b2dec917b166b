import { Module } from '@nestjs/common';
import { LineModule } from '../line/line.module';
import { ClaimWindowSweep } from './claim-window.service';

/** The claim window's settings form and its sweep (reminders, expiries), which the maintenance round runs. */
@Module({ imports: [LineModule], providers: [ClaimWindowSweep], exports: [ClaimWindowSweep] })
export class ClaimWindowModule {}
