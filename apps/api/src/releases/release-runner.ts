import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Clock, Metrics, newId, Release } from '@app/shared';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { InvitationsService } from '../invitations/invitations.service';
import type { ReleaseRunView } from './releases.dto';
import { tickKey } from './release-schedule';
import { MailQuota } from './mail-quota';
import { RUN_COLUMNS, runView, type RunRow } from './release-runs';
import { RunLocks } from './run-locks';

/** A run that failed: it stopped with an error, or not one of its mails went out. The alert counts these. */
export const FAILED_RUN = `(error IS NOT NULL OR (failed > 0 AND invited = 0))`;
const UNKNOWN_OUTCOME = 'The process running it stopped before it finished; its invited entries are in the list as invited.';
/**
 * A run of an api from before runs named their request holds no lock, so it looks orphaned while that
 * api may still be running it (a rolling upgrade): it is closed only once it has had an hour.
 */
const UNNAMED_RUN_GRACE_MS = 60 * 60_000;

/**
 * Runs a release: invite-next of min(count, free places under the cap) for its product and mode, the
 * line's order and failure handling (a failed mail leaves its entry in line), recorded in release_runs
 * with whom it invited and whose mail failed (the dashboard's list of a run).
 * A scheduled tick is claimed first by inserting its row, unique per release and wall-clock tick, so
 * one run gets through per tick whichever replica, retry or reconcile fires it. The process running a
 * run holds its lock (RunLocks) from before its row exists, so that a run whose process died is known
 * by its free lock and taken over by another (takeOver).
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
    private readonly locks: RunLocks,
    private readonly quota: MailQuota,
    metrics: Metrics,
  ) {
    this.runs = metrics.counter({
      name: 'waitlist_release_runs_total',
      help: 'Release runs by outcome: invited (every mail out), partly_failed, failed (an error, or no mail out), nothing_to_invite (empty line or no place under the cap), already_run (a tick fired again, not run)',
      labelNames: ['outcome'],
    });
    this.entries = metrics.counter({
      name: 'waitlist_release_entries_total',
      help: 'Entries of release runs by result: invited, failed (mail not handed over, still in line), skipped_for_capacity, skipped_for_quota',
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
    return this.locked(newId('run'), async (id, requestId) => {
      const [claimed]: { id: string }[] = await this.db.query(
        `INSERT INTO release_runs (id, release_id, tick_at, tick_local, started_at, asked, request_id) VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (release_id, tick_local) DO NOTHING RETURNING id`,
        [id, release.id, tick, tickKey(tick, release.timeZone), this.clock.now(), release.count, requestId],
      );
      if (!claimed) {
        this.runs.inc({ outcome: 'already_run' });
        return null;
      }
      return this.run(release, id, requestId, release.count);
    });
  }

  /** Run now: a run of its own, beside the schedule, whether the release is paused or not. */
  async runNow(release: Release): Promise<ReleaseRunView> {
    return this.locked(newId('run'), async (id, requestId) => {
      await this.db.query(`INSERT INTO release_runs (id, release_id, started_at, asked, request_id) VALUES ($1, $2, $3, $4, $5)`, [
        id,
        release.id,
        this.clock.now(),
        release.count,
        requestId,
      ]);
      return this.run(release, id, requestId, release.count);
    });
  }

  /**
   * Takes over the runs whose process died: unfinished, and nobody holds their lock. Each one is
   * finished by its request's own outcome (InvitationsService.outlive: who was invited stays invited,
   * nobody is mailed twice) and the rest of its count, invited under a request of this process, under
   * the cap. A run of an api from before runs named their request is closed: whom it invited is not known.
   */
  async takeOver(): Promise<number> {
    const unfinished: { id: string }[] = await this.db.query(`SELECT id FROM release_runs WHERE finished_at IS NULL ORDER BY started_at`);
    // Settled each: one that fails must not leave the others running unawaited (the next round retries it).
    const taken = await Promise.allSettled(
      unfinished.map(async ({ id }) => {
        if (!(await this.locks.take(id))) return false;
        try {
          return await this.resume(id);
        } finally {
          await this.locks.release(id);
        }
      }),
    );
    const failed = taken.find((outcome) => outcome.status === 'rejected');
    if (failed) throw failed.reason;
    return taken.filter((outcome) => outcome.status === 'fulfilled' && outcome.value).length;
  }

  private async resume(runId: string): Promise<boolean> {
    const [run]: { release_id: string; request_id: string | null; finished_at: Date | null; started_at: Date }[] = await this.db.query(
      'SELECT release_id, request_id, finished_at, started_at FROM release_runs WHERE id = $1',
      [runId],
    );
    // Finished between the look and the lock, or deleted with its release.
    if (!run || run.finished_at) return false;
    if (!run.request_id && this.clock.now().getTime() - run.started_at.getTime() < UNNAMED_RUN_GRACE_MS) return false;
    const release = await this.db.getRepository(Release).findOneBy({ id: run.release_id });
    if (!release) return false;
    this.logger.warn(`Release ${release.id} run ${runId}: the process running it stopped; taking it over`);
    if (!run.request_id) {
      await this.db.query(`UPDATE release_runs SET finished_at = $2, error = $3 WHERE id = $1 AND finished_at IS NULL`, [runId, this.clock.now(), UNKNOWN_OUTCOME]);
      this.runs.inc({ outcome: 'failed' });
      return true;
    }
    const invitedBefore = await this.invitations.outlive({ productId: release.productId, mode: release.mode }, run.request_id);
    const requestId = randomUUID();
    const [[switched]]: [{ asked: number; invited: number }[], number] = await this.db.query(
      `UPDATE release_runs SET request_id = $3, invited = invited + $4, invited_entry_ids = invited_entry_ids || $5
       WHERE id = $1 AND request_id = $2 AND finished_at IS NULL RETURNING asked, invited`,
      [runId, run.request_id, requestId, invitedBefore.length, invitedBefore],
    );
    // Its process was alive after all and finished it meanwhile.
    if (!switched) return false;
    await this.run(release, runId, requestId, Math.max(0, switched.asked - switched.invited));
    return true;
  }

  /** `work` under the run's lock, which ends with it (or with this process). */
  private async locked<T>(runId: string, work: (runId: string, requestId: string) => Promise<T>): Promise<T> {
    await this.locks.take(runId);
    try {
      return await work(runId, randomUUID());
    } finally {
      await this.locks.release(runId);
    }
  }

  /**
   * Invites `count` for the run under `requestId` and records how it went, added to what an earlier
   * process of the run invited; the run's row is written only while the run is still this request's.
   */
  private async run(release: Release, runId: string, requestId: string, count: number): Promise<ReleaseRunView> {
    let outcome: string;
    try {
      // The product's mail quota first: what it leaves out waits for a later run in a window with room.
      const fits = Math.min(count, await this.quota.room(release.productId));
      const { invited, failed, skippedForCapacity } = await this.invitations.release({ productId: release.productId, mode: release.mode }, fits, requestId);
      const [[row]]: [{ invited: number }[], number] = await this.db.query(
        `UPDATE release_runs SET finished_at = $2, invited = invited + $3, failed = $4, skipped_for_capacity = $5, failed_entry_ids = $6, skipped_for_quota = $8,
           invited_entry_ids = invited_entry_ids || $9
         WHERE id = $1 AND request_id = $7 RETURNING invited`,
        [runId, this.clock.now(), invited.length, failed.length, skippedForCapacity, failed, requestId, count - fits, invited],
      );
      this.entries.inc({ result: 'skipped_for_quota' }, count - fits);
      this.entries.inc({ result: 'invited' }, invited.length);
      this.entries.inc({ result: 'failed' }, failed.length);
      this.entries.inc({ result: 'skipped_for_capacity' }, skippedForCapacity);
      const all = row?.invited ?? invited.length;
      outcome = failed.length === 0 ? (all === 0 ? 'nothing_to_invite' : 'invited') : all === 0 ? 'failed' : 'partly_failed';
    } catch (error) {
      const message = (error as Error).message;
      this.logger.error(`Release ${release.id} run ${runId} failed: ${message}`);
      await this.db.query(`UPDATE release_runs SET finished_at = $2, error = $3 WHERE id = $1 AND request_id = $4`, [runId, this.clock.now(), message, requestId]).catch(() => undefined);
      outcome = 'failed';
    }
    this.runs.inc({ outcome });
    const [row]: RunRow[] = await this.db.query(`SELECT ${RUN_COLUMNS} FROM release_runs r JOIN releases rel ON rel.id = r.release_id WHERE r.id = $1`, [runId]);
    return runView(row);
  }
}
