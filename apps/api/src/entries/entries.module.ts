import { Module } from '@nestjs/common';
import { KeysModule } from '../keys/keys.module';
import { EntriesController } from './entries.controller';
import { EntriesService } from './entries.service';

/** Entries: list, read, delete. */
@Module({ imports: [KeysModule], controllers: [EntriesController], providers: [EntriesService], exports: [EntriesService] })
export class EntriesModule {}
