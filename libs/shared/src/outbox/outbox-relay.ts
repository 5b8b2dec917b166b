import { Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { JobsOptions, Queue } from 'bullmq';
import type { DataSource } from 'typeorm';
import { Rounds } from '../queues/rounds';
import { withTimeout } from '../queues/redis';
import { restoreJobs } from '../queues/restore';
import { outboxJobId } from './outbox';

const BATCH = 200;
const IDLE_MS = 200;
const ADD_TIMEOUT_MS = 3000;
/** Rows checked against Redis per reconcile round. */
const RECHECK_BATCH = 500;

interface Row {
  id: string;
  name: string;
  data: object;
}

/**
 * Moves committed outbox rows into their BullMQ queue, and keeps them there until their work is done.
 * Rows are claimed with SKIP LOCKED, so any number of relays may run; the row id is the job id, so a
 * row added twice is one job. While Redis is away, rows simply wait. Every `reconcileEveryMs` the
 * relay checks the rows it published at least that long ago and not leased by a consumer, and adds
 * again each one whose job Redis no longer has: work is re-enqueued within about two such intervals
 * of vanishing (or of its consumer's lease running out).
 */
export class OutboxRelay implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(OutboxRelay.name);
  private readonly rounds = new Rounds(this.logger);

  constructor(
    private readonly dataSource: DataSource,
    private readonly queue: Queue,
    private readonly jobOptions: (name: string) => JobsOptions,
    private readonly reconcileEveryMs: number,
  ) {}

  onApplicationBootstrap(): void {
    const queue = this.queue.name;
    this.rounds.start(`Outbox relay of ${queue}`, () => this.relayOnce(), (count) => (count === BATCH ? 0 : IDLE_MS));
    this.rounds.start(`Outbox reconciler of ${queue}`, () => this.reconcileOnce(), () => this.reconcileEveryMs, this.reconcileEveryMs);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.rounds.stop();
    await this.queue.close();
  }

  /** Publishes one batch of new rows; returns how many went out. */
  private async relayOnce(): Promise<number> {
    return this.dataSource.transaction(async (manager) => {
      const rows: Row[] = await manager.query(
        `SELECT id, name, data FROM outbox WHERE queue = $1 AND published_at IS NULL ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED`,
        [this.queue.name, BATCH],
      );
      if (rows.length === 0) return 0;
      await withTimeout(this.queue.addBulk(rows.map((row) => this.job(row))), ADD_TIMEOUT_MS, `adding ${rows.length} jobs to ${this.queue.name}`);
      await manager.query(`UPDATE outbox SET published_at = now() WHERE id = ANY($1::bigint[])`, [rows.map((row) => row.id)]);
      return rows.length;
    });
  }

  /** Adds again the jobs of published rows that Redis lost; returns how many. */
  private async reconcileOnce(): Promise<number> {
    return this.dataSource.transaction(async (manager) => {
      const rows: Row[] = await manager.query(
        `SELECT id, name, data FROM outbox
         WHERE queue = $1 AND published_at < now() - $2 * interval '1 millisecond' AND (leased_until IS NULL OR leased_until < now())
         ORDER BY published_at LIMIT $3 FOR UPDATE SKIP LOCKED`,
        [this.queue.name, this.reconcileEveryMs, RECHECK_BATCH],
      );
      if (rows.length === 0) return 0;
      const restored = await withTimeout(restoreJobs(this.queue, rows.map((row) => this.job(row))), ADD_TIMEOUT_MS, `checking ${rows.length} jobs of ${this.queue.name}`);
      await manager.query(`UPDATE outbox SET published_at = now() WHERE id = ANY($1::bigint[])`, [rows.map((row) => row.id)]);
      if (restored > 0) this.logger.warn(`Added ${restored} ${this.queue.name} jobs again that Redis had lost`);
      return restored;
    });
  }

  private job(row: Row) {
    return { name: row.name, data: row.data, opts: { ...this.jobOptions(row.name), jobId: outboxJobId(row.id) } };
  }
}
