import { Module } from '@nestjs/common';
import { ChallengesModule } from '../challenges/challenges.module';
import { KeysModule } from '../keys/keys.module';
import { LeaderboardModule } from '../leaderboard/leaderboard.module';
import { LineModule } from '../line/line.module';
import { ReferralsModule } from '../referrals/referrals.module';
import { EntryStatus } from './entry-status.service';
import { PagesController } from './pages.controller';
import { SignupsController } from './signups.controller';
import { SignupsService } from './signups.service';
import { SignupSignals } from './signup-signals';
import { SignupWatches } from './signup-watches';

/** Public sign-up, and the hosted pages: sign-up form, confirm, unsubscribe. */
@Module({
  imports: [ChallengesModule, KeysModule, LineModule, ReferralsModule, LeaderboardModule],
  controllers: [SignupsController, PagesController],
  providers: [SignupsService, EntryStatus, SignupWatches, SignupSignals],
  exports: [SignupsService, EntryStatus, SignupWatches, SignupSignals],
})
export class SignupsModule {}
