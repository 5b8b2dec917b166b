/** A failed attempt that is to be tried again after `delayMs`. */
export class RetryLater extends Error {
  constructor(
    message: string,
    readonly delayMs: number,
  ) {
    super(message);
  }
}

/**
 * The webhook retry schedule (WEBHOOK_RETRY_DELAYS) in one place: how many attempts a delivery gets,
 * the delay after each failed one, and BullMQ's side of it. Attempts are counted in PostgreSQL (the
 * delivery log), not by BullMQ, so a delivery whose job Redis lost and that was added again keeps its
 * place in the schedule. Delays count from the end of the failed attempt, without jitter.
 */
export class RetrySchedule {
  constructor(private readonly delays: readonly number[]) {}

  /** The first attempt and one per delay. */
  get attempts(): number {
    return this.delays.length + 1;
  }

  /** The delay before the attempt after failed attempt `attempt` (1-based); null after the last one. */
  delayAfter(attempt: number): number | null {
    return this.delays[attempt - 1] ?? null;
  }

  /** BullMQ's custom backoff: the delay the worker chose with RetryLater; anything else is not retried. */
  readonly backoff = (_attemptsMade: number, _type?: string, error?: Error): number => (error instanceof RetryLater ? error.delayMs : -1);

  /**
   * The job that makes the further attempts of one delivery, the first of them after `delayMs`; its id
   * is the delivery's. Its attempts are a bound only: the log decides when the delivery is given up.
   */
  job(deliveryId: string, delayMs = 0) {
    return {
      name: 'deliver' as const,
      data: { deliveryId },
      opts: {
        jobId: deliveryId,
        delay: delayMs,
        attempts: this.attempts,
        backoff: { type: 'custom' },
        removeOnComplete: { age: 3600 },
        removeOnFail: { age: 7 * 86_400 },
      },
    };
  }
}
