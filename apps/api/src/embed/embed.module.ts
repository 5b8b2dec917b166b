import { Module } from '@nestjs/common';
import { SignupsModule } from '../signups/signups.module';
import { EmbedController } from './embed.controller';
import { EmbedService } from './embed.service';

/** The script-tag form (/embed.js) and the two public routes it reads. */
@Module({ imports: [SignupsModule], controllers: [EmbedController], providers: [EmbedService] })
export class EmbedModule {}
