import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Clock, Metrics, newId, Release } from '@app/shared';
import { DataSource } from 'typeorm';
import { InvitationsService } from '../invitations/invitations.service';
import type { ReleaseRunView } from './releases.dto';
import { tickKey } from './release-schedule';
import { RUN_COLUMNS, runView, type RunRow } from './release-runs';

/** A run that failed: it stopped with an error, or not one of its mails went out. The alert counts these. */
export const FAILED_RUN = `(error IS NOT NULL OR (failed > 0 AND invited = 0))`;

/**
 * Runs a release: invite-next of min(count, free places under the cap) for its product and mode, the
 * line's order and failure handling (a failed mail leaves its entry in line), recorded in release_runs.
 * A scheduled tick is claimed first by inserting its row, unique per release and wall-clock tick, so
 * one run gets through per tick whichever replica, retry or reconcile fires it.
 */
@Injectable()
export class ReleaseRunner {
  private readonly logger = new Logger(ReleaseRunner.name);
  private readonly runs;
  private readonly entries;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly invitations: InvitationsService,
    private readonly clock: Clock,
    metrics: Metrics,
  ) {
    this.runs = metrics.counter({
      name: 'waitlist_release_runs_total',
      help: 'Release runs by outcome: invited (every mail out), partly_failed, failed (an error, or no mail out), nothing_to_invite (empty line or no place under the cap), already_run (a tick fired again, not run)',
      labelNames: ['outcome'],
    });
    this.entries = metrics.counter({
      name: 'waitlist_release_entries_total',
      help: 'Entries of release runs by result: invited, failed (mail not handed over, still in line), skipped_for_capacity',
      labelNames: ['result'],
    });
    const database = this.db;
    metrics.gauge({
      name: 'waitlist_releases_failing',
      help: 'Releases not paused whose last two runs both failed (an error, or no mail out)',
      async collect() {
        const [{ n }]: { n: number }[] = await database.query(
          `SELECT count(*)::int AS n FROM releases r WHERE NOT r.paused AND 2 = (
             SELECT count(*) FROM (SELECT error, failed, invited FROM release_runs WHERE release_id = r.id AND finished_at IS NOT NULL ORDER BY started_at DESC LIMIT 2) last
             WHERE ${FAILED_RUN})`,
        );
        this.set(n);
      },
    });
  }

  /** A scheduled tick of a release; null when the tick was run already, or the release is paused, changed since or gone. */
  async runTick(releaseId: string, tick: Date): Promise<ReleaseRunView | null> {
    const release = await this.db.getRepository(Release).findOneBy({ id: releaseId });
    if (!release || release.paused || tick < release.scheduleFrom) return null;
    const [claimed]: { id: string }[] = await this.db.query(
      `INSERT INTO release_runs (id, release_id, tick_at, tick_local, started_at, asked) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (release_id, tick_local) DO NOTHING RETURNING id`,
      [newId('run'), release.id, tick, tickKey(tick, release.timeZone), this.clock.now(), release.count],
    );
    if (!claimed) {
      this.runs.inc({ outcome: 'already_run' });
      return null;
    }
    return this.run(release, claimed.id);
  }

  /** Run now: a run of its own, beside the schedule, whether the release is paused or not. */
  async runNow(release: Release): Promise<ReleaseRunView> {
    const id = newId('run');
    await this.db.query(`INSERT INTO release_runs (id, release_id, started_at, asked) VALUES ($1, $2, $3, $4)`, [id, release.id, this.clock.now(), release.count]);
    return this.run(release, id);
  }

  private async run(release: Release, runId: string): Promise<ReleaseRunView> {
    let outcome: string;
    try {
      const { invited, failed, skippedForCapacity } = await this.invitations.release({ productId: release.productId, mode: release.mode }, release.count);
      await this.db.query(
        `UPDATE release_runs SET finished_at = $2, invited = $3, failed = $4, skipped_for_capacity = $5, failed_entry_ids = $6 WHERE id = $1`,
        [runId, this.clock.now(), invited.length, failed.length, skippedForCapacity, failed],
      );
      this.entries.inc({ result: 'invited' }, invited.length);
      this.entries.inc({ result: 'failed' }, failed.length);
      this.entries.inc({ result: 'skipped_for_capacity' }, skippedForCapacity);
      outcome = failed.length === 0 ? (invited.length === 0 ? 'nothing_to_invite' : 'invited') : invited.length === 0 ? 'failed' : 'partly_failed';
    } catch (error) {
      const message = (error as Error).message;
      this.logger.error(`Release ${release.id} run ${runId} failed: ${message}`);
      await this.db.query(`UPDATE release_runs SET finished_at = $2, error = $3 WHERE id = $1`, [runId, this.clock.now(), message]).catch(() => undefined);
      outcome = 'failed';
    }
    this.runs.inc({ outcome });
    const [row]: RunRow[] = await this.db.query(`SELECT ${RUN_COLUMNS} FROM release_runs r JOIN releases rel ON rel.id = r.release_id WHERE r.id = $1`, [runId]);
    return runView(row);
  }
}
