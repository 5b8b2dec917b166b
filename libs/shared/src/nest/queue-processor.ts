import { OnWorkerEvent, WorkerHost } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';

/**
 * A BullMQ processor whose worker reports its errors (Redis gone, mostly) as one warning in the log.
 * Without a listener BullMQ prints each of them to stderr as a stack trace.
 */
export abstract class QueueProcessor extends WorkerHost {
  private readonly workerLogger = new Logger(this.constructor.name);

  @OnWorkerEvent('error')
  onWorkerError(error: Error): void {
    this.workerLogger.warn(`Worker: ${error.message}`);
  }
}
