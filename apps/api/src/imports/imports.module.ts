import { Module } from '@nestjs/common';
import { KeysModule } from '../keys/keys.module';
import { ImportsController } from './imports.controller';
import { ImportsService } from './imports.service';

/** Import of a waitlist from another tool's CSV export: the API route, and the service the CLI and the dashboard share. */
@Module({ imports: [KeysModule], controllers: [ImportsController], providers: [ImportsService], exports: [ImportsService] })
export class ImportsModule {}
