import { Module } from '@nestjs/common';
import { EntriesModule } from '../entries/entries.module';
import { KeysModule } from '../keys/keys.module';
import { LineModule } from '../line/line.module';
import { DISPOSABLE_DOMAIN_LIST, MAINTAINED_DISPOSABLE_DOMAINS } from './disposable-domains';
import { ReferralsController } from './referrals.controller';
import { ReferralLists } from './referral-lists';
import { ReferralsService } from './referrals.service';

/** Referral credit: the rules that decide it at confirmation, waiting periods, the team's grant and revoke. */
@Module({
  imports: [KeysModule, EntriesModule, LineModule],
  controllers: [ReferralsController],
  providers: [ReferralsService, ReferralLists, { provide: DISPOSABLE_DOMAIN_LIST, useValue: MAINTAINED_DISPOSABLE_DOMAINS }],
  exports: [ReferralsService, ReferralLists],
})
export class ReferralsModule {}
