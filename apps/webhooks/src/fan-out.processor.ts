import { Processor, WorkerHost } from '@nestjs/bullmq';
import { OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { EventRecord, JOB_NAMES, JobData, QueueName } from '@app/shared';
import { Job } from 'bullmq';
import { DataSource } from 'typeorm';

/**
 * Turns each committed event into deliveries for the endpoints that want it. Endpoints do not exist
 * yet, so no endpoint wants any event: its body is deleted at once, as for any event nobody wants.
 */
@Processor(QueueName.Webhooks, { concurrency: 10 })
export class FanOutProcessor extends WorkerHost implements OnModuleInit {
  constructor(@InjectDataSource() private readonly db: DataSource) {
    super();
  }

  onModuleInit(): void {
    const handled: string[] = ['fan-out'];
    const missing = JOB_NAMES[QueueName.Webhooks].filter((name) => !handled.includes(name));
    if (missing.length) throw new Error(`The webhooks app does not handle the jobs ${missing.join(', ')}`);
  }

  async process(job: Job<JobData<QueueName.Webhooks, 'fan-out'>>): Promise<void> {
    await this.db.getRepository(EventRecord).update({ id: job.data.eventId }, { body: null });
  }
}
