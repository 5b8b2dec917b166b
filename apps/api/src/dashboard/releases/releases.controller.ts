import { Body, Controller, Get, Param, Post, Res, UseFilters, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { ApiError } from '../../common/api-error';
import { NEW_RELEASE } from '../../releases/releases.dto';
import { patternOfChoice } from '../../releases/schedule-choice';
import { ReleasesService } from '../../releases/releases.service';
import { DashboardGuard, LoginRedirect } from '../auth/dashboard.guard';
import { parseForm, storableForm, text } from '../shared/forms';
import { refusal, releaseRan } from '../shared/messages';
import { InProduct, ProductPage } from '../shared/product-page';
import { Replies } from '../shared/replies';
import { deleteReleasePage, ReleaseForm, releaseRunPage, releaseRunsPage, releasesPage, runNowPage } from './pages';

/** Scheduled releases of a product and mode: list, schedule, pause, resume, run now (asked first), a run's people, delete. */
@Controller('dashboard/:productId/:mode/releases')
@UseGuards(DashboardGuard)
@UseFilters(LoginRedirect)
export class DashboardReleasesController {
  constructor(
    private readonly releases: ReleasesService,
    private readonly replies: Replies,
  ) {}

  @Get()
  async list(@InProduct() at: ProductPage, @Res() reply: FastifyReply): Promise<void> {
    const notice = await this.replies.notice(at.identity, `${at.base}/releases`);
    await this.replies.page(reply, 200, releasesPage(at, await this.releases.list(at.scope), notice));
  }

  @Post()
  async create(@InProduct() at: ProductPage, @Body() body: Record<string, unknown> | undefined, @Res() reply: FastifyReply): Promise<void> {
    const form: ReleaseForm = {
      count: text(body?.count),
      // A form from before the choices posts a cron expression alone.
      kind: text(body?.kind) || 'cron',
      day: text(body?.day),
      at: text(body?.at),
      hours: text(body?.hours),
      pattern: text(body?.pattern),
      timeZone: text(body?.timeZone),
    };
    try {
      const count = /^\d+$/.test(form.count.trim()) ? Number(form.count) : form.count;
      const pattern = patternOfChoice(storableForm(form));
      await this.releases.create(at.scope, parseForm(NEW_RELEASE, { count, pattern, timeZone: form.timeZone }));
      await this.replies.redirectWith(reply, `${at.base}/releases`, at.identity, { done: 'The release is scheduled.' });
    } catch (error) {
      const { status, words } = refusal(error);
      await this.replies.page(reply, status, releasesPage(at, await this.releases.list(at.scope), { refused: words }, form));
    }
  }

  @Get(':releaseId')
  async runs(@InProduct() at: ProductPage, @Param('releaseId') id: string, @Res() reply: FastifyReply): Promise<void> {
    const release = await this.releases.get(at.scope, id);
    await this.replies.page(reply, 200, releaseRunsPage(at, release, this.releases.nextRuns(release, 5), (await this.releases.runs(at.scope, id, 50)).data));
  }

  @Get(':releaseId/runs/:runId')
  async run(@InProduct() at: ProductPage, @Param('releaseId') id: string, @Param('runId') runId: string, @Res() reply: FastifyReply): Promise<void> {
    const release = await this.releases.get(at.scope, id);
    await this.replies.page(reply, 200, releaseRunPage(at, release, await this.releases.runEntries(at.scope, id, runId)));
  }

  /** How many a run now would invite under the cap; its button posts to run. */
  @Get(':releaseId/run')
  async confirmRun(@InProduct() at: ProductPage, @Param('releaseId') id: string, @Res() reply: FastifyReply): Promise<void> {
    const release = await this.releases.get(at.scope, id);
    await this.replies.page(reply, 200, runNowPage(at, release, await this.releases.forecast(at.scope, id)));
  }

  /** What deleting the release takes with it; its button posts to delete. */
  @Get(':releaseId/delete')
  async confirmDelete(@InProduct() at: ProductPage, @Param('releaseId') id: string, @Res() reply: FastifyReply): Promise<void> {
    await this.replies.page(reply, 200, deleteReleasePage(at, await this.releases.get(at.scope, id)));
  }

  @Post(':releaseId/:action')
  async act(@InProduct() at: ProductPage, @Param('releaseId') id: string, @Param('action') action: string, @Res() reply: FastifyReply): Promise<void> {
    const back = (done: string) => this.replies.redirectWith(reply, `${at.base}/releases`, at.identity, { done });
    switch (action) {
      case 'pause':
        await this.releases.pause(at.scope, id);
        return back('The release is paused: it runs again once resumed.');
      case 'resume':
        await this.releases.resume(at.scope, id);
        return back('The release is resumed: it runs at its next time.');
      case 'run': {
        const { invited, failed, skippedForCapacity } = await this.releases.runNow(at.scope, id);
        return back(releaseRan(invited, failed, skippedForCapacity));
      }
      case 'delete':
        await this.releases.remove(at.scope, id);
        return back('The release is deleted.');
      default:
        throw new ApiError('not_found', 'No such page.');
    }
  }
}
