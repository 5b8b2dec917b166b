import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { APP_CONFIG, AppConfig, Clock, CommandQueue, Delivery, DeliveryAttempt, QueueName, RetrySchedule, withTimeout } from '@app/shared';
import { DataSource, IsNull, MoreThan, Not } from 'typeorm';
import { ApiError } from '../common/api-error';
import { JobQueues } from '../common/job-queues';

const RETRY_NOW_TIMEOUT_MS = 3000;

/** The delivery log keeps the last 100 deliveries of an endpoint from the last 30 days. */
export const DELIVERY_LOG = { size: 100, days: 30 } as const;

export interface LoggedDelivery {
  id: string;
  eventId: string;
  eventType: string;
  status: Delivery['status'];
  createdAt: Date;
  nextAttemptAt: Date | null;
  attempts: Pick<DeliveryAttempt, 'attempt' | 'attemptedAt' | 'statusCode' | 'error' | 'durationMs'>[];
}

/** An endpoint's delivery log, and "retry now" for a delivery in it that waits for its next attempt. */
@Injectable()
export class DeliveryLog {
  /** Only for "retry now": fails fast while Redis is away, since an operator's click must not wait for it. */
  private readonly deliveries: CommandQueue;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clock: Clock,
    queues: JobQueues,
  ) {
    this.deliveries = queues.get(QueueName.Deliveries);
  }

  /** The endpoint's last 100 deliveries of the last 30 days, newest first, each with its attempts. */
  async of(endpointId: string): Promise<LoggedDelivery[]> {
    const since = new Date(this.clock.now().getTime() - DELIVERY_LOG.days * 86_400_000);
    const deliveries = await this.db.getRepository(Delivery).find({
      where: { endpointId, createdAt: MoreThan(since) },
      order: { createdAt: 'DESC', id: 'DESC' },
      take: DELIVERY_LOG.size,
    });
    const attempts = deliveries.length
      ? await this.db
          .getRepository(DeliveryAttempt)
          .createQueryBuilder('a')
          .where('a.delivery_id IN (:...ids)', { ids: deliveries.map((delivery) => delivery.id) })
          .orderBy('a.attempt', 'ASC')
          .getMany()
      : [];
    return deliveries.map((delivery) => ({
      id: delivery.id,
      eventId: delivery.eventId,
      eventType: delivery.eventType,
      status: delivery.status,
      createdAt: delivery.createdAt,
      nextAttemptAt: delivery.nextAttemptAt,
      attempts: attempts
        .filter((attempt) => attempt.deliveryId === delivery.id)
        .map(({ attempt, attemptedAt, statusCode, error, durationMs }) => ({ attempt, attemptedAt, statusCode, error, durationMs })),
    }));
  }

  /**
   * Sends a delivery that waits for its next attempt at once. Only while it waits: once delivered or
   * given up its body is gone, and the log keeps the metadata alone. A job Redis lost is added again.
   */
  async retryNow(deliveryId: string): Promise<void> {
    const delivery = await this.db.getRepository(Delivery).findOneBy({ id: deliveryId, status: 'pending', nextAttemptAt: Not(IsNull()) });
    if (!delivery) throw notWaiting();
    const promoted = await withTimeout(
      (async () => {
        const job = await this.deliveries.getJob(delivery.id);
        if (!job) {
          const { name, data, opts } = new RetrySchedule(this.config.WEBHOOK_RETRY_DELAYS).job(delivery.id);
          await this.deliveries.add(name, data, opts);
          return true;
        }
        if (!(await job.isDelayed())) return false;
        await job.promote();
        return true;
      })(),
      RETRY_NOW_TIMEOUT_MS,
      'retry now',
    ).catch(() => {
      throw new ApiError('queue_unavailable', 'The queue cannot be reached right now. Try again in a moment.');
    });
    if (!promoted) throw notWaiting();
  }
}

const notWaiting = () => new ApiError('delivery_not_waiting', 'This delivery is not waiting for a retry.');
