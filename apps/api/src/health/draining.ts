import { BeforeApplicationShutdown, Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/shared';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The api's first step on SIGTERM, before it stops listening: for SHUTDOWN_GRACE it goes on serving,
 * /readyz answers 503 so that a load balancer stops sending it requests, and every answer asks its
 * client to close the connection, so that no client is left holding a kept-alive connection that
 * the close would cut under a request it has just sent. Requests under way when it then closes finish.
 */
@Injectable()
export class Draining implements BeforeApplicationShutdown {
  active = false;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  async beforeApplicationShutdown(signal?: string): Promise<void> {
    // Only an orchestrator's stop; a programmatic close (tests) or Ctrl-C (SIGINT) closes at once.
    if (signal !== 'SIGTERM') return;
    this.active = true;
    await sleep(this.config.SHUTDOWN_GRACE);
  }
}
