import { InjectQueue, Processor } from '@nestjs/bullmq';
import { InjectDataSource } from '@nestjs/typeorm';
import { Clock, Delivery, EventRecord, JobData, jobRunner, newId, QueueName, QueueProcessor, RetrySchedule, WebhookEndpoint, workOnOutboxJob } from '@app/shared';
import { Queue } from 'bullmq';
import { DataSource, IsNull } from 'typeorm';

/**
 * Turns each committed event into one delivery per endpoint that wants it (same product and mode,
 * type chosen, not disabled). An event nobody wants has its body deleted at once. Running twice for
 * one event makes no second delivery: (endpoint, event) is unique and the delivery id is the job id.
 */
@Processor(QueueName.Webhooks, { concurrency: 10 })
export class FanOutProcessor extends QueueProcessor {
  protected readonly jobs = jobRunner(QueueName.Webhooks, {
    'fan-out': (job) => workOnOutboxJob(this.db, job, () => this.fanOut(job.data)),
  });

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @InjectQueue(QueueName.Deliveries) private readonly deliveries: Queue,
    private readonly schedule: RetrySchedule,
    private readonly clock: Clock,
  ) {
    super();
  }

  private async fanOut({ eventId, endpointId }: JobData<QueueName.Webhooks, 'fan-out'>): Promise<void> {
    const event = await this.db.getRepository(EventRecord).findOneBy({ id: eventId });
    if (!event?.body) return;
    const endpoints = endpointId
      ? await this.db.getRepository(WebhookEndpoint).findBy({ id: endpointId })
      : (await this.db.getRepository(WebhookEndpoint).findBy({ productId: event.productId, mode: event.mode, disabledAt: IsNull() })).filter(
          (endpoint) => endpoint.events.includes(event.type),
        );
    if (endpoints.length === 0) {
      await this.db.getRepository(EventRecord).update({ id: eventId }, { body: null });
      return;
    }
    const now = this.clock.now();
    await this.db
      .createQueryBuilder()
      .insert()
      .into(Delivery)
      .values(endpoints.map((endpoint) => ({ id: newId('dlv'), endpointId: endpoint.id, eventId, eventType: event.type, status: 'pending' as const, createdAt: now })))
      .orIgnore()
      .execute();
    const deliveries = await this.db.getRepository(Delivery).findBy({ eventId, status: 'pending' });
    await this.deliveries.addBulk(deliveries.map((delivery) => this.schedule.job(delivery.id)));
  }
}
