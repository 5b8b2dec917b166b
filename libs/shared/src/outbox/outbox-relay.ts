import { Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { JobsOptions, Queue } from 'bullmq';
import type { DataSource } from 'typeorm';
import { withTimeout } from '../queues/redis';

const BATCH = 200;
const IDLE_MS = 200;
const ADD_TIMEOUT_MS = 3000;

/**
 * Moves committed outbox rows into their BullMQ queues. Rows are claimed with SKIP LOCKED, so any
 * number of relays may run; the outbox row id is the job id, so a row added twice (a relay that died
 * between adding and deleting) is still one job. While Redis is away, rows simply wait.
 */
export class OutboxRelay implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(OutboxRelay.name);
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly queue: Queue,
    private readonly jobOptions: (name: string) => JobsOptions,
  ) {}

  onApplicationBootstrap(): void {
    this.stopped = false;
    this.schedule(0);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    await this.queue.close();
  }

  /** Relays one batch; returns how many rows went out. */
  async relayOnce(): Promise<number> {
    return this.dataSource.transaction(async (manager) => {
      const rows: { id: string; name: string; data: unknown }[] = await manager.query(
        `SELECT id, name, data FROM outbox WHERE queue = $1 ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED`,
        [this.queue.name, BATCH],
      );
      if (rows.length === 0) return 0;
      await withTimeout(
        this.queue.addBulk(
          rows.map((row) => ({
            name: row.name,
            data: row.data,
            opts: { ...this.jobOptions(row.name), jobId: `outbox-${row.id}` },
          })),
        ),
        ADD_TIMEOUT_MS,
        `adding ${rows.length} jobs to ${this.queue.name}`,
      );
      await manager.query(`DELETE FROM outbox WHERE id = ANY($1::bigint[])`, [rows.map((row) => row.id)]);
      return rows.length;
    });
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.relayOnce()
        .then((count) => this.schedule(count === BATCH ? 0 : IDLE_MS))
        .catch((error: Error) => {
          this.logger.warn(`Outbox relay for ${this.queue.name} will retry: ${error.message}`);
          this.schedule(IDLE_MS * 5);
        });
    }, delay);
  }
}
