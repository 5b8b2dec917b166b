import { Module } from '@nestjs/common';
import { KeysModule } from '../keys/keys.module';
import { LeaderboardController } from './leaderboard.controller';
import { LeaderboardService } from './leaderboard.service';

/** The leaderboard of referrers: public (masked) by publishable key, on the status page and the sign-up form's result, and whole for the team. */
@Module({ imports: [KeysModule], controllers: [LeaderboardController], providers: [LeaderboardService], exports: [LeaderboardService] })
export class LeaderboardModule {}
