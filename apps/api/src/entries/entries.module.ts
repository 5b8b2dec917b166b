import { Module } from '@nestjs/common';
import { KeysModule } from '../keys/keys.module';
import { ListCursors } from './cursor';
import { EntriesController } from './entries.controller';
import { EntriesService } from './entries.service';

/** Entries: list, read, delete; the lists' cursors. */
@Module({ imports: [KeysModule], controllers: [EntriesController], providers: [EntriesService, ListCursors], exports: [EntriesService, ListCursors] })
export class EntriesModule {}
