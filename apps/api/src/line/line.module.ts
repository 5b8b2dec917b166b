import { Module } from '@nestjs/common';
import { KeysModule } from '../keys/keys.module';
import { LineController } from './line.controller';
import { LineService } from './line.service';

/** The line: joining it on confirmation, referral credit, move-up, places, the front. */
@Module({ imports: [KeysModule], controllers: [LineController], providers: [LineService], exports: [LineService] })
export class LineModule {}
