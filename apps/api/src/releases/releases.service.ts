import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Clock, newId, Release } from '@app/shared';
import { DataSource } from 'typeorm';
import { ApiError } from '../common/api-error';
import type { ProductScope } from '../common/scope';
import { ReleaseRunner } from './release-runner';
import { readRunEntries, RUN_COLUMNS, runView, type RunEntries, type RunRow } from './release-runs';
import { nextTicks, scheduleProblem, zonedTime } from './release-schedule';
import { ReleaseSchedulers } from './release-schedulers';
import { type RunForecast, RunForecasts } from './run-forecast';
import type { NewRelease, ReleaseChanges, ReleaseRunList, ReleaseRunView, ReleaseView } from './releases.dto';

export const releaseNotFound = () => new ApiError('not_found', 'No such release for this key.');

/**
 * Releases of a product's mode: "invite count every pattern in timeZone". The row is the truth and is
 * committed first; its BullMQ scheduler follows, and a scheduler Redis did not take (Redis away) is put
 * back by the next reconcile. The API, the dashboard and the CLI all go through here.
 */
@Injectable()
export class ReleasesService {
  private readonly logger = new Logger(ReleasesService.name);

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly schedulers: ReleaseSchedulers,
    private readonly runner: ReleaseRunner,
    private readonly forecasts: RunForecasts,
    private readonly clock: Clock,
  ) {}

  /** The product and mode of a release, for the CLI, which names a release by its id alone. */
  async scopeOf(id: string): Promise<ProductScope | null> {
    const release = await this.db.getRepository(Release).findOneBy({ id });
    return release && { productId: release.productId, mode: release.mode };
  }

  async list(scope: ProductScope): Promise<ReleaseView[]> {
    const releases = await this.db.getRepository(Release).find({ where: { productId: scope.productId, mode: scope.mode }, order: { createdAt: 'ASC', id: 'ASC' } });
    return releases.map((release) => this.view(release));
  }

  async get(scope: ProductScope, id: string): Promise<ReleaseView> {
    return this.view(await this.find(scope, id));
  }

  async create(scope: ProductScope, input: NewRelease): Promise<ReleaseView> {
    const now = this.clock.now();
    const release = Object.assign(new Release(), {
      id: newId('rel'),
      productId: scope.productId,
      mode: scope.mode,
      count: input.count,
      pattern: input.pattern,
      timeZone: input.timeZone,
      paused: input.paused ?? false,
      scheduleFrom: now,
      createdAt: now,
    });
    await this.db.getRepository(Release).insert(release);
    await this.schedule(release);
    return this.view(release);
  }

  /** Changes the fields given; a new schedule or a resume starts from now (no tick before it is owed). */
  async update(scope: ProductScope, id: string, changes: ReleaseChanges): Promise<ReleaseView> {
    const release = await this.find(scope, id);
    const pattern = changes.pattern ?? release.pattern;
    const timeZone = changes.timeZone ?? release.timeZone;
    const problem = scheduleProblem(pattern, timeZone);
    if (problem) throw new ApiError('invalid_request', problem, { param: problem.startsWith('The time zone') ? 'timeZone' : 'pattern' });
    const rescheduled = pattern !== release.pattern || timeZone !== release.timeZone || (release.paused && changes.paused === false);
    Object.assign(release, {
      count: changes.count ?? release.count,
      pattern,
      timeZone,
      paused: changes.paused ?? release.paused,
      scheduleFrom: rescheduled ? this.clock.now() : release.scheduleFrom,
    });
    await this.db.getRepository(Release).update(release.id, release);
    await this.schedule(release);
    return this.view(release);
  }

  async pause(scope: ProductScope, id: string): Promise<ReleaseView> {
    return this.update(scope, id, { paused: true });
  }

  async resume(scope: ProductScope, id: string): Promise<ReleaseView> {
    return this.update(scope, id, { paused: false });
  }

  /** Deleted with its runs; a job of it already in Redis finds no release and does nothing. */
  async remove(scope: ProductScope, id: string): Promise<void> {
    const release = await this.find(scope, id);
    await this.db.getRepository(Release).delete(release.id);
    await this.schedulers.remove(release.id).catch((error: Error) => this.logger.warn(`The scheduler of a deleted release stays until the next reconcile: ${error.message}`));
  }

  /** Runs the release now and answers once its mails were settled. */
  async runNow(scope: ProductScope, id: string): Promise<ReleaseRunView> {
    return this.runner.runNow(await this.find(scope, id));
  }

  async runs(scope: ProductScope, id: string, limit: number): Promise<ReleaseRunList> {
    const release = await this.find(scope, id);
    const rows: RunRow[] = await this.db.query(
      `SELECT ${RUN_COLUMNS} FROM release_runs r JOIN releases rel ON rel.id = r.release_id WHERE r.release_id = $1 ORDER BY r.started_at DESC, r.id DESC LIMIT $2`,
      [release.id, limit],
    );
    return { data: rows.map(runView) };
  }

  /** What a run now would invite, which the dashboard says before it runs. */
  async forecast(scope: ProductScope, id: string): Promise<RunForecast> {
    return this.forecasts.of(await this.find(scope, id));
  }

  /** The release's next `count` runs; none while paused. */
  nextRuns(release: ReleaseView, count: number): Date[] {
    return release.paused ? [] : nextTicks(release.pattern, release.timeZone, this.clock.now(), count);
  }

  /** A run of the release with whom it invited and whose mail failed. */
  async runEntries(scope: ProductScope, id: string, runId: string): Promise<RunEntries> {
    const entries = await readRunEntries(this.db, (await this.find(scope, id)).id, runId);
    if (!entries) throw new ApiError('not_found', 'No such run of this release.');
    return entries;
  }

  private async find(scope: ProductScope, id: string): Promise<Release> {
    const release = await this.db.getRepository(Release).findOneBy({ id, productId: scope.productId, mode: scope.mode });
    if (!release) throw releaseNotFound();
    return release;
  }

  private async schedule(release: Release): Promise<void> {
    await this.schedulers.put(release).catch((error: Error) => this.logger.warn(`Release ${release.id}: its scheduler waits for the next reconcile: ${error.message}`));
  }

  private view(release: Release): ReleaseView {
    const next = release.paused ? null : nextTicks(release.pattern, release.timeZone, this.clock.now(), 1)[0];
    return {
      id: release.id,
      mode: release.mode,
      count: release.count,
      pattern: release.pattern,
      timeZone: release.timeZone,
      paused: release.paused,
      nextRunAt: next?.toISOString() ?? null,
      nextRunLocal: next ? zonedTime(next, release.timeZone) : null,
      createdAt: release.createdAt.toISOString(),
    };
  }
}
