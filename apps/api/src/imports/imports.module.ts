import { Module } from '@nestjs/common';
import { KeysModule } from '../keys/keys.module';
import { HeldUploads } from './held-uploads';
import { ImportsController } from './imports.controller';
import { ImportsService } from './imports.service';

/** Import of a waitlist from another tool's CSV export: the API route, the service the CLI and the dashboard share, and the dashboard's held uploads. */
@Module({ imports: [KeysModule], controllers: [ImportsController], providers: [ImportsService, HeldUploads], exports: [ImportsService, HeldUploads] })
export class ImportsModule {}
