import { OnWorkerEvent, WorkerHost } from '@nestjs/bullmq';
import { BeforeApplicationShutdown, Inject, Logger } from '@nestjs/common';
import { Outages } from './outages';
import { Job, UnrecoverableError } from 'bullmq';
import { JOB_NAMES, JobData, JobName, QueueName } from '../queues/contract';
import { endReconnecting } from '../queues/redis';

export type JobOf<Q extends QueueName, N extends JobName<Q>> = Job<JobData<Q, N>>;

/** A handler for every job name of a queue: leaving one out fails the typecheck. */
export type JobHandlers<Q extends QueueName> = { [N in JobName<Q>]: (job: JobOf<Q, N>) => Promise<void> };

/** What a worker runs for each job it takes. */
export type JobRunner = (job: Job) => Promise<void>;

/**
 * Runs each job of `queue` by the handler of its name. Made when its worker is, so that a job name of
 * JOB_NAMES without a handler (whatever the types said) stops the app from starting; a job whose name
 * has no handler fails for good, as a retry would find none either.
 */
export function jobRunner<Q extends QueueName>(queue: Q, handlers: JobHandlers<Q>): JobRunner {
  const byName = new Map(Object.entries(handlers) as [string, JobRunner][]);
  const missing = JOB_NAMES[queue].filter((name) => typeof byName.get(name) !== 'function');
  if (missing.length) throw new Error(`No handler for the ${queue} jobs ${missing.join(', ')}: a worker of the ${queue} queue must handle each of its job names`);
  return async (job) => {
    const handler = byName.get(job.name);
    if (!handler) throw new UnrecoverableError(`No handler for the ${queue} job ${job.name}`);
    return handler(job);
  };
}

/**
 * A BullMQ processor that runs each job by its name (`jobs`, made with jobRunner as a field, so that a
 * missing handler fails when Nest builds the processor at start-up), whose worker's errors (Redis gone,
 * mostly) are one outage in the log (Outages), where BullMQ would print each to stderr as a stack trace,
 * and whose worker can always be closed.
 */
export abstract class QueueProcessor extends WorkerHost implements BeforeApplicationShutdown {
  protected abstract readonly jobs: JobRunner;
  private readonly workerLogger = new Logger(this.constructor.name);
  @Inject(Outages) private readonly outages!: Outages;

  process(job: Job): Promise<void> {
    return this.jobs(job);
  }

  @OnWorkerEvent('error')
  onWorkerError(error: Error): void {
    void this.outages.explain().then((outage) => outage || this.workerLogger.warn(`Worker: ${error.message}`));
  }

  /**
   * Closes the worker before @nestjs/bullmq does (its close then returns the same promise), ending what
   * waits to reconnect, which would otherwise hold the close for ever after a Redis outage; the close
   * starts first, for the reason closeWithin gives.
   */
  async beforeApplicationShutdown(): Promise<void> {
    const closing = this.worker.close();
    endReconnecting(this.worker);
    await closing;
  }
}
