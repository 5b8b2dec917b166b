import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import {
  APP_CONFIG,
  AppConfig,
  closeWithin,
  CommandQueue,
  endQueueConnection,
  INVITATION_TIMING,
  INVITATION_WAIT_MS,
  JobData,
  queueConnection,
  QueueName,
  queuePrefix,
  withTimeout,
} from '@app/shared';
import { Job, QueueEvents } from 'bullmq';
import { setTimeout as sleep } from 'node:timers/promises';
import { JobQueues } from '../common/job-queues';

const POLL_MS = 200;

/**
 * Asks the mailer to hand over the invitation mails of a request's entries (one job) and waits, within
 * a bound, until it is done. The outcomes are read from the entries afterwards (the mailer records
 * each handover itself), so this only has to wait long enough: after INVITATION_WAIT_MS no mail of
 * the job can go out any more.
 */
@Injectable()
export class InvitationMailer implements OnApplicationShutdown {
  private readonly queue: CommandQueue;
  /** One listener per process for every request; completion events can be missed, so we also poll. */
  private readonly events: QueueEvents;

  constructor(@Inject(APP_CONFIG) config: AppConfig, queues: JobQueues) {
    this.queue = queues.get(QueueName.Invitations);
    this.events = new QueueEvents(QueueName.Invitations, {
      connection: queueConnection(config),
      prefix: queuePrefix(config),
    });
    // Failures surface on the calls that fail; an idle reconnect needs no log line.
    this.events.on('error', () => undefined);
    // Every request in flight waits on the shared listener: many listeners are the design, not a leak.
    this.events.setMaxListeners(0);
  }

  /** Resolves when the job finished, failed, could not be added, or the bound passed; never rejects. */
  async send(request: Omit<JobData<QueueName.Invitations, 'invitations'>, 'deadline'>): Promise<void> {
    const started = Date.now();
    let job: Job;
    try {
      job = await withTimeout(
        this.queue.add(
          'invitations',
          { ...request, deadline: started + INVITATION_TIMING.queueBoundMs },
          { attempts: 1, removeOnComplete: { age: 600 }, removeOnFail: { age: 600 } },
        ),
        2000,
        'adding an invitation job',
      );
    } catch {
      return;
    }
    const remaining = () => INVITATION_WAIT_MS - (Date.now() - started);
    const done = new AbortController();
    await Promise.race([
      job.waitUntilFinished(this.events, remaining()).catch(() => undefined),
      this.pollUntilFinished(job, remaining, done.signal),
    ]);
    done.abort();
  }

  async onApplicationShutdown(): Promise<void> {
    // The listener has nothing to finish, so its bound is short.
    await closeWithin(this.events, 2000, 'the invitation listener').catch(() => undefined);
    endQueueConnection(this.events.opts.connection);
  }

  private async pollUntilFinished(job: Job, remaining: () => number, stop: AbortSignal): Promise<void> {
    while (!stop.aborted && remaining() > 0) {
      await sleep(Math.min(POLL_MS, Math.max(remaining(), 1)));
      const state = await job.getState().catch(() => 'unknown');
      if (state === 'completed' || state === 'failed') return;
    }
    // Given up: a job that has not started yet is taken back (the mailer would refuse it anyway).
    if (!stop.aborted) await job.remove().catch(() => undefined);
  }
}
