import { Module } from '@nestjs/common';
import { KeysModule } from '../keys/keys.module';
import { ChallengesController } from './challenges.controller';
import { ChallengesService } from './challenges.service';

/** The sign-up challenge: issued from a public route, checked by the public sign-up. */
@Module({ imports: [KeysModule], controllers: [ChallengesController], providers: [ChallengesService], exports: [ChallengesService] })
export class ChallengesModule {}
