import { Module } from '@nestjs/common';
import { KeysModule } from '../keys/keys.module';
import { ListCursors } from './cursor';
import { EntriesController } from './entries.controller';
import { EntriesService } from './entries.service';
import { ProfileController } from './profile.controller';
import { ProfileService } from './profile.service';

/** Entries: list, read, delete, an entry's profile; the lists' cursors. */
@Module({ imports: [KeysModule], controllers: [EntriesController, ProfileController], providers: [EntriesService, ProfileService, ListCursors], exports: [EntriesService, ListCursors] })
export class EntriesModule {}
