import { Module } from '@nestjs/common';
import { EntriesModule } from '../entries/entries.module';
import { KeysModule } from '../keys/keys.module';
import { LineController } from './line.controller';
import { LineService } from './line.service';
import { PlaceHistoryService } from './place-history';

/** The line: joining it on confirmation, referral credit, move-up, places, the front, each entry's place history. */
@Module({ imports: [KeysModule, EntriesModule], controllers: [LineController], providers: [LineService, PlaceHistoryService], exports: [LineService, PlaceHistoryService] })
export class LineModule {}
