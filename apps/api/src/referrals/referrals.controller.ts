import { Controller, Get, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import type { KeyScope } from '../common/scope';
import { Query } from '../common/validation';
import { Scope, SecretKeyGuard } from '../keys/secret-key.guard';
import { ENTRY_LIST_QUERY, EntryListQuery } from '../entries/entries.dto';
import { ReferralPage, ReferralView } from './referrals.dto';
import { ReferralLists } from './referral-lists';
import { ReferralsService } from './referrals.service';

@Controller('api/v1/entries/:id/referrals')
@UseGuards(SecretKeyGuard)
export class ReferralsController {
  constructor(
    private readonly referrals: ReferralsService,
    private readonly lists: ReferralLists,
  ) {}

  @Get()
  list(@Scope() scope: KeyScope, @Param('id') id: string, @Query(ENTRY_LIST_QUERY) query: EntryListQuery): Promise<ReferralPage> {
    return this.lists.list(scope, id, query);
  }

  @Post(':referralId/grant')
  @HttpCode(200)
  grant(@Scope() scope: KeyScope, @Param('id') id: string, @Param('referralId') referralId: string): Promise<ReferralView> {
    return this.referrals.decide(scope, id, referralId, 'grant');
  }

  @Post(':referralId/revoke')
  @HttpCode(200)
  revoke(@Scope() scope: KeyScope, @Param('id') id: string, @Param('referralId') referralId: string): Promise<ReferralView> {
    return this.referrals.decide(scope, id, referralId, 'revoke');
  }
}
