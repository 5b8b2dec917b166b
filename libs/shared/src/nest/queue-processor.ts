import { OnWorkerEvent, WorkerHost } from '@nestjs/bullmq';
import { BeforeApplicationShutdown, Logger } from '@nestjs/common';
import { endReconnecting } from '../queues/redis';

/**
 * A BullMQ processor whose worker reports its errors (Redis gone, mostly) as one warning in the log,
 * where BullMQ would print each to stderr as a stack trace, and whose worker can always be closed.
 */
export abstract class QueueProcessor extends WorkerHost implements BeforeApplicationShutdown {
  private readonly workerLogger = new Logger(this.constructor.name);

  @OnWorkerEvent('error')
  onWorkerError(error: Error): void {
    this.workerLogger.warn(`Worker: ${error.message}`);
  }

  /** Runs before @nestjs/bullmq closes the worker, which would otherwise wait for ever after a Redis outage. */
  beforeApplicationShutdown(): void {
    endReconnecting(this.worker);
  }
}
