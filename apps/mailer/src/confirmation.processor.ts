import { Processor } from '@nestjs/bullmq';
import { Inject } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { APP_CONFIG, AppConfig, describeDuration, jobRunner, newToken, OutboxJobs, QueueName, QueueProcessor } from '@app/shared';
import { DataSource } from 'typeorm';
import { MailSender } from './mail-sender';
import { confirmationMail } from './mails/confirmation';

const SEND_BOUND_MS = 30_000;

@Processor(QueueName.Mail, { concurrency: 50 })
export class ConfirmationProcessor extends QueueProcessor {
  protected readonly jobs = jobRunner(QueueName.Mail, {
    confirmation: (job) => this.outbox.work(job, () => this.sendConfirmation(job.data.entryId)),
  });
  private readonly outbox: OutboxJobs;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly sender: MailSender,
  ) {
    super();
    this.outbox = new OutboxJobs(db);
  }

  /**
   * The confirmation mail of a pending entry. Its links' tokens are made here, so that no code ever
   * travels through Redis; each mail gets its own, and older mails' links keep working.
   */
  private async sendConfirmation(entryId: string): Promise<void> {
    const confirm = newToken();
    const confirmUrl = `${this.config.PUBLIC_BASE_URL}/confirm/${confirm}`;
    const keptFor = describeDuration(this.config.PENDING_ENTRY_TTL);
    await this.sender.sendToPending(entryId, (product, unsubscribeUrl) => confirmationMail(product.name, confirmUrl, unsubscribeUrl, keptFor), {
      confirmTokens: [confirm],
      // Well within the outbox lease, so that no second copy of this job starts while it runs.
      signal: AbortSignal.timeout(SEND_BOUND_MS),
    });
  }
}
