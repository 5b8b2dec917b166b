import { Module } from '@nestjs/common';
import { KeysModule } from '../keys/keys.module';
import { ListCursors } from './cursor';
import { EntriesController } from './entries.controller';
import { EntriesService } from './entries.service';
import { ProfileController } from './profile.controller';
import { ProfileService } from './profile.service';

/** Entries: list, read, delete; the lists' cursors; their profiles (language, answers and attribution). */
@Module({
  imports: [KeysModule],
  controllers: [EntriesController, ProfileController],
  providers: [EntriesService, ListCursors, ProfileService],
  exports: [EntriesService, ListCursors, ProfileService],
})
export class EntriesModule {}
