import { Controller, Delete, Get, HttpCode, Param, Patch, Post, UseGuards } from '@nestjs/common';
import type { KeyScope } from '../common/scope';
import { Idempotent } from '../common/idempotency.interceptor';
import { JsonBody, Query } from '../common/validation';
import { Scope, SecretKeyGuard } from '../keys/secret-key.guard';
import { NEW_RELEASE, NewRelease, RELEASE_CHANGES, ReleaseChanges, ReleaseRunList, ReleaseRunView, ReleaseView, RUNS_QUERY } from './releases.dto';
import { ReleasesService } from './releases.service';

@Controller('api/v1/releases')
@UseGuards(SecretKeyGuard)
export class ReleasesController {
  constructor(private readonly releases: ReleasesService) {}

  @Get()
  async list(@Scope() scope: KeyScope): Promise<{ data: ReleaseView[] }> {
    return { data: await this.releases.list(scope) };
  }

  @Post()
  @HttpCode(201)
  @Idempotent(NEW_RELEASE)
  create(@Scope() scope: KeyScope, @JsonBody(NEW_RELEASE) body: NewRelease): Promise<ReleaseView> {
    return this.releases.create(scope, body);
  }

  @Get(':id')
  get(@Scope() scope: KeyScope, @Param('id') id: string): Promise<ReleaseView> {
    return this.releases.get(scope, id);
  }

  @Patch(':id')
  update(@Scope() scope: KeyScope, @Param('id') id: string, @JsonBody(RELEASE_CHANGES) body: ReleaseChanges): Promise<ReleaseView> {
    return this.releases.update(scope, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  async remove(@Scope() scope: KeyScope, @Param('id') id: string): Promise<void> {
    await this.releases.remove(scope, id);
  }

  @Post(':id/run')
  @HttpCode(200)
  @Idempotent()
  run(@Scope() scope: KeyScope, @Param('id') id: string): Promise<ReleaseRunView> {
    return this.releases.runNow(scope, id);
  }

  @Get(':id/runs')
  runs(@Scope() scope: KeyScope, @Param('id') id: string, @Query(RUNS_QUERY) query: { limit: number }): Promise<ReleaseRunList> {
    return this.releases.runs(scope, id, query.limit);
  }
}
