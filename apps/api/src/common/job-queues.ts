import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, AppConfig, CommandQueue, JOB_QUEUES, Outages } from '@app/shared';

type JobQueueName = (typeof JOB_QUEUES)[number];

/**
 * The api's one connection to each BullMQ queue, for adding jobs (invitations, "retry now") and reading
 * them (metrics, Bull Board); it fails fast while Redis is away (CommandQueue). Closed at shutdown.
 */
@Injectable()
export class JobQueues implements OnApplicationShutdown {
  readonly all: readonly CommandQueue[];

  constructor(@Inject(APP_CONFIG) config: AppConfig, outages: Outages) {
    this.all = JOB_QUEUES.map((name) => CommandQueue.open(name, config));
    for (const queue of this.all) {
      // Every request in flight may wait on a queue: many listeners are the design, not a leak.
      queue.setMaxListeners(0);
      // A lost connection is how the api learns of a Redis outage when no request needs Redis.
      queue.on('error', () => void outages.explain());
    }
  }

  get(name: JobQueueName): CommandQueue {
    return this.all[JOB_QUEUES.indexOf(name)];
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.allSettled(this.all.map((queue) => queue.close()));
  }
}
