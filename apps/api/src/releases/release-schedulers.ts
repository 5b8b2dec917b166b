import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Clock, CommandQueue, QueueName, Release, withTimeout } from '@app/shared';
import { DataSource } from 'typeorm';
import { JobQueues } from '../common/job-queues';
import { latestTick, tickKey } from './release-schedule';

/** A release's jobs are small and their outcome is in release_runs: Redis keeps them a day for Bull Board. */
const JOB_OPTIONS = { attempts: 1, removeOnComplete: { age: 86_400 }, removeOnFail: { age: 86_400 } };
/** A tick this recent is the scheduler's to fire: a reconcile owes only older ones (the run guard would stop a second run anyway). */
const OWED_AFTER_MS = 5_000;
const REDIS_TIMEOUT_MS = 2000;

export interface Reconciled {
  /** Schedulers put back (missing from Redis, or not as PostgreSQL says). */
  restored: number;
  /** Schedulers of releases paused or deleted. */
  removed: number;
  /** Ticks no run was recorded for, added as jobs. */
  owed: number;
}

/**
 * The BullMQ job schedulers of the releases, one per active release under the release's id, so that a
 * tick makes one job across every replica; PostgreSQL holds the releases, and reconcile rebuilds the
 * schedulers from it after Redis lost its data, and adds a job for the last tick that has no run.
 */
@Injectable()
export class ReleaseSchedulers {
  private readonly queue: CommandQueue;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    queues: JobQueues,
    private readonly clock: Clock,
  ) {
    this.queue = queues.get(QueueName.Releases);
  }

  /** The release's scheduler as its row says: running, or gone while paused. */
  async put(release: Release): Promise<void> {
    if (release.paused) return this.remove(release.id);
    await withTimeout(
      this.queue.upsertJobScheduler(release.id, { pattern: release.pattern, tz: release.timeZone }, { name: 'release', data: { releaseId: release.id }, opts: JOB_OPTIONS }),
      REDIS_TIMEOUT_MS,
      'putting a release scheduler',
    );
  }

  async remove(releaseId: string): Promise<void> {
    await withTimeout(this.queue.removeJobScheduler(releaseId), REDIS_TIMEOUT_MS, 'removing a release scheduler');
  }

  /**
   * Makes Redis's schedulers what PostgreSQL's releases say, and adds a job for each release's last
   * tick (older than OWED_AFTER_MS, not before its schedule was set) that has no run: a tick Redis lost
   * between its data going and this reconcile. One owed tick per release: a release whose period is
   * shorter than the time Redis was without its schedulers loses the ticks before the last.
   */
  async reconcile(): Promise<Reconciled> {
    const releases = await this.db.getRepository(Release).find();
    const schedulers = new Map((await withTimeout(this.queue.getJobSchedulers(), REDIS_TIMEOUT_MS, 'reading the release schedulers')).map((s) => [s.key, s]));
    let restored = 0;
    let removed = 0;
    let owed = 0;
    for (const release of releases) {
      const scheduler = schedulers.get(release.id);
      schedulers.delete(release.id);
      if (release.paused) {
        if (scheduler) await this.remove(release.id).then(() => removed++);
        continue;
      }
      if (!scheduler || scheduler.pattern !== release.pattern || scheduler.tz !== release.timeZone) await this.put(release).then(() => restored++);
      if (await this.addOwedTick(release)) owed++;
    }
    for (const stray of schedulers.keys()) await this.remove(stray).then(() => removed++);
    return { restored, removed, owed };
  }

  private async addOwedTick(release: Release): Promise<boolean> {
    const tick = latestTick(release.pattern, release.timeZone, new Date(this.clock.now().getTime() - OWED_AFTER_MS));
    if (!tick || tick < release.scheduleFrom) return false;
    const [run] = await this.db.query('SELECT 1 FROM release_runs WHERE release_id = $1 AND tick_local = $2', [release.id, tickKey(tick, release.timeZone)]);
    if (run) return false;
    await withTimeout(
      this.queue.add('release', { releaseId: release.id, tick: tick.getTime() }, { ...JOB_OPTIONS, jobId: `owed-${release.id}-${tick.getTime()}` }),
      REDIS_TIMEOUT_MS,
      'adding an owed release tick',
    );
    return true;
  }
}
