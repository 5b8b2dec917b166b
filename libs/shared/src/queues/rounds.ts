import { Logger } from '@nestjs/common';

/** What Rounds needs of Outages (nest/outages.ts): whether a failure is a server's outage, said once there. */
export interface OutageCheck {
  explain(): Promise<boolean>;
}

/** How long to wait after a round failed (Redis or PostgreSQL away, mostly). */
const AFTER_FAILURE_MS = 1000;

/**
 * Background rounds of a worker app (the outbox claims, the reconciler): each runs again `next(result)`
 * ms after it ended, a failed round is logged and tried again a little later, and stop() ends them all
 * and waits for the rounds under way.
 */
export class Rounds {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly running = new Set<Promise<unknown>>();
  private stopped = false;

  /** `outages`: a round that failed because PostgreSQL or Redis is away is that outage's, said once there. */
  constructor(
    private readonly logger: Logger,
    private readonly outages?: OutageCheck,
  ) {}

  start<T>(what: string, round: () => Promise<T>, next: (result: T) => number, firstDelay = 0): void {
    this.stopped = false;
    this.schedule(what, round, next, firstDelay);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.timers.forEach(clearTimeout);
    this.timers.clear();
    await Promise.allSettled(this.running);
  }

  private schedule<T>(what: string, round: () => Promise<T>, next: (result: T) => number, delay: number): void {
    if (this.stopped) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      const run: Promise<void> = round()
        .then((result) => this.schedule(what, round, next, next(result)))
        .catch(async (error: Error) => {
          if (!(await this.outages?.explain())) this.logger.warn(`${what} will try again: ${error.message}`);
          this.schedule(what, round, next, AFTER_FAILURE_MS);
        })
        .finally(() => this.running.delete(run));
      this.running.add(run);
    }, delay);
    this.timers.add(timer);
  }
}
