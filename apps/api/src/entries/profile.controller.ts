import { Controller, Get, Param, UseGuards } from '@nestjs/common';
import type { KeyScope } from '../common/scope';
import { Scope, SecretKeyGuard } from '../keys/secret-key.guard';
import type { EntryProfile } from './profile.dto';
import { ProfileService } from './profile.service';

/** GET /api/v1/entries/{id}/profile: the person behind an entry (language, answers, attribution), beside the Entry object, which keeps its fields. */
@Controller('api/v1/entries')
@UseGuards(SecretKeyGuard)
export class ProfileController {
  constructor(private readonly profiles: ProfileService) {}

  @Get(':id/profile')
  profile(@Scope() scope: KeyScope, @Param('id') id: string): Promise<EntryProfile> {
    return this.profiles.profile(scope, id);
  }
}
