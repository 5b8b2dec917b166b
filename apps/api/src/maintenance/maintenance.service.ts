import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { InjectDataSource } from '@nestjs/typeorm';
import { APP_CONFIG, AppConfig, Clock, EntryRecord, forgetAppliedFeedback, IdempotencyRecord } from '@app/shared';
import { DataSource, EntityManager, LessThan } from 'typeorm';
import { ClaimWindowSweep } from '../claim-window/claim-window.service';
import { forgetExpiredUploads } from '../imports/held-uploads';
import { ReferralsService } from '../referrals/referrals.service';
import { ReleaseRunner } from '../releases/release-runner';
import { ReleaseSchedulers } from '../releases/release-schedulers';
import { DELIVERY_LOG } from '../webhooks/delivery-log';

/** Any fixed number shared by every replica: whoever holds this advisory lock does the round. */
const MAINTENANCE_LOCK = 727_001;

/** Scheduled maintenance, run once per MAINTENANCE_INTERVAL across all api replicas: purges what has expired (the dashboard's held uploads among it), credits referrals whose wait is over, sweeps the claim windows, reconciles the release schedulers and takes over the release runs whose process died. */
@Injectable()
export class MaintenanceService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(MaintenanceService.name);
  /** Rounds under way: one that finishes a release run it took over outlasts the next ones. */
  private readonly rounds = new Set<Promise<unknown>>();

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly scheduler: SchedulerRegistry,
    private readonly referrals: ReferralsService,
    private readonly claimWindows: ClaimWindowSweep,
    private readonly releases: ReleaseSchedulers,
    private readonly runner: ReleaseRunner,
  ) {}

  onApplicationBootstrap(): void {
    const timer = setInterval(() => {
      const round = this.runOnce()
        .catch((error: Error) => this.logger.error(`Maintenance failed: ${error.message}`, error.stack))
        .finally(() => this.rounds.delete(round));
      this.rounds.add(round);
    }, this.config.MAINTENANCE_INTERVAL);
    this.scheduler.addInterval('maintenance', timer);
  }

  /**
   * Before the connections close: a round may be finishing a release run it took over, under the run's
   * lock. No round starts meanwhile (the scheduler would stop the timer only after this).
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.scheduler.deleteInterval('maintenance');
    await Promise.all(this.rounds);
  }

  /**
   * One round; false when another replica holds the lock and does it. The claim windows are swept
   * after the round's transaction, in batches of their own (each safe beside another sweep), so that
   * a large sweep holds neither the round's lock nor its rows for long; then the release schedulers
   * are reconciled, and the release runs whose process died are taken over.
   */
  async runOnce(): Promise<boolean> {
    const ran = await this.purgeAndCredit();
    if (ran) {
      await this.claimWindows.sweep(this.clock.now());
      await this.reconcileReleases();
      await this.takeOverReleaseRuns();
    }
    return ran;
  }

  /**
   * A run whose process died is found here within one MAINTENANCE_INTERVAL, by its lock, and finished
   * by this process: the round lasts until then (at most the invitation hold, then its mails).
   */
  private async takeOverReleaseRuns(): Promise<void> {
    try {
      const taken = await this.runner.takeOver();
      if (taken > 0) this.logger.log(`Release runs taken over from a process that stopped: ${taken}`);
    } catch (error) {
      this.logger.warn(`Taking over release runs failed; the next round tries again: ${(error as Error).message}`);
    }
  }

  /**
   * After the round's transaction, as it talks to Redis: the release schedulers put back from
   * PostgreSQL and the jobs of ticks Redis lost, within one MAINTENANCE_INTERVAL of a loss.
   */
  private async reconcileReleases(): Promise<void> {
    try {
      const { restored, removed, owed } = await this.releases.reconcile();
      if (restored + removed + owed > 0) this.logger.log(`Release schedulers: ${restored} put back, ${removed} removed, ${owed} missed ticks queued`);
    } catch (error) {
      this.logger.warn(`Reconciling the release schedulers failed; the next round tries again: ${(error as Error).message}`);
    }
  }

  private async purgeAndCredit(): Promise<boolean> {
    return this.db.transaction(async (manager) => {
      const [{ locked }]: { locked: boolean }[] = await manager.query('SELECT pg_try_advisory_xact_lock($1) AS locked', [
        MAINTENANCE_LOCK,
      ]);
      if (!locked) return false;
      const purged = await this.purgePendingEntries(manager);
      if (purged > 0) this.logger.log(`Purged ${purged} unconfirmed entries`);
      const keyCutoff = new Date(this.clock.now().getTime() - this.config.IDEMPOTENCY_TTL);
      await manager.delete(IdempotencyRecord, { createdAt: LessThan(keyCutoff) });
      await this.trimDeliveryLog(manager);
      await this.purgeEvents(manager);
      await forgetAppliedFeedback(manager, this.clock.now());
      await forgetExpiredUploads(manager, this.clock.now());
      // Last, as it holds the lines of the products it credits (shared) until the round commits.
      const credited = await this.referrals.creditWaited(manager, this.clock.now());
      if (credited > 0) this.logger.log(`Credited ${credited} referrals whose waiting period ended`);
      return true;
    });
  }

  /** The delivery log keeps the last 100 deliveries per endpoint of the last 30 days; deliveries still running stay. */
  private async trimDeliveryLog(manager: EntityManager): Promise<void> {
    const cutoff = new Date(this.clock.now().getTime() - DELIVERY_LOG.days * 86_400_000);
    await manager.query(
      `DELETE FROM deliveries WHERE status <> 'pending' AND (created_at < $1 OR id IN (
         SELECT id FROM (
           SELECT id, row_number() OVER (PARTITION BY endpoint_id ORDER BY created_at DESC, id DESC) AS place FROM deliveries
         ) ranked WHERE place > $2))`,
      [cutoff, DELIVERY_LOG.size],
    );
  }

  /**
   * Events are kept as long as the delivery log (30 days), and longer only while one of their
   * deliveries is still trying; the overview's day counts do not need them. At most 10,000 a round.
   */
  private async purgeEvents(manager: EntityManager): Promise<void> {
    const cutoff = new Date(this.clock.now().getTime() - DELIVERY_LOG.days * 86_400_000);
    await manager.query(
      `DELETE FROM events WHERE id IN (
         SELECT id FROM events e WHERE created_at < $1
           AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = e.id AND d.status = 'pending')
         LIMIT 10000)`,
      [cutoff],
    );
  }

  /** Unconfirmed entries older than PENDING_ENTRY_TTL are deleted without an event. */
  private async purgePendingEntries(manager: EntityManager): Promise<number> {
    const cutoff = new Date(this.clock.now().getTime() - this.config.PENDING_ENTRY_TTL);
    const result = await manager
      .createQueryBuilder()
      .delete()
      .from(EntryRecord)
      .where('state = :state AND created_at < :cutoff', { state: 'pending', cutoff })
      .execute();
    return result.affected ?? 0;
  }
}
