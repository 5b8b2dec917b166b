import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, Logger, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  APP_CONFIG,
  AppConfig,
  Clock,
  EntryRecord,
  EntryToken,
  hashToken,
  JOB_NAMES,
  JobData,
  JobName,
  newToken,
  Product,
  QueueName,
} from '@app/shared';
import { Job, UnrecoverableError } from 'bullmq';
import { DataSource } from 'typeorm';
import { MailTransport } from './mail-transport';
import { confirmationMail } from './mails/confirmation';
import { MailContent } from './mails/layout';

type MailJob = { [N in JobName<QueueName.Mail>]: Job<JobData<QueueName.Mail, N>, void, N> }[JobName<QueueName.Mail>];

@Processor(QueueName.Mail, { concurrency: 10 })
export class MailProcessor extends WorkerHost implements OnModuleInit {
  private readonly logger = new Logger(MailProcessor.name);
  private readonly handlers: { [N in JobName<QueueName.Mail>]: (data: JobData<QueueName.Mail, N>) => Promise<void> } = {
    confirmation: (data) => this.sendConfirmation(data.entryId),
  };

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly transport: MailTransport,
    private readonly clock: Clock,
  ) {
    super();
  }

  onModuleInit(): void {
    const missing = JOB_NAMES[QueueName.Mail].filter((name) => !(name in this.handlers));
    if (missing.length) throw new Error(`The mailer does not handle the mail jobs ${missing.join(', ')}`);
  }

  async process(job: MailJob): Promise<void> {
    await this.handlers[job.name](job.data);
  }

  /**
   * The confirmation mail of a pending entry. Its links' tokens are made here, so that no code ever
   * travels through Redis; each mail gets its own pair, and older mails' links keep working.
   */
  private async sendConfirmation(entryId: string): Promise<void> {
    const entry = await this.db.getRepository(EntryRecord).findOneBy({ id: entryId });
    if (entry?.state !== 'pending') return;
    const product = await this.db.getRepository(Product).findOneByOrFail({ id: entry.productId });
    const confirm = newToken();
    const unsubscribe = await this.issueTokens(entry, confirm);
    if (!unsubscribe) return;
    const base = this.config.PUBLIC_BASE_URL;
    await this.send(
      entry.email,
      product.name,
      `${base}/unsubscribe/${unsubscribe}`,
      confirmationMail(product.name, `${base}/confirm/${confirm}`, `${base}/unsubscribe/${unsubscribe}`),
    );
  }

  /** Stores the hashes of a confirmation token and a new unsubscribe token; null if the entry is gone. */
  private async issueTokens(entry: EntryRecord, confirm: string): Promise<string | null> {
    const unsubscribe = newToken();
    const createdAt = this.clock.now();
    try {
      await this.db.getRepository(EntryToken).insert([
        { hash: hashToken(confirm), entryId: entry.id, purpose: 'confirm', createdAt },
        { hash: hashToken(unsubscribe), entryId: entry.id, purpose: 'unsubscribe', createdAt },
      ]);
      return unsubscribe;
    } catch (error) {
      if ((error as { code?: string }).code === '23503') return null; // deleted meanwhile: nothing to send
      throw error;
    }
  }

  private async send(to: string, productName: string, unsubscribeUrl: string, content: MailContent): Promise<void> {
    try {
      await this.transport.send({
        from: this.sender(productName),
        to,
        ...content,
        headers: {
          'List-Unsubscribe': `<${unsubscribeUrl}>`,
          'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
        },
      });
    } catch (error) {
      // A 5xx for the recipient will not change on retry; anything else (a 4xx, a dropped connection) may.
      const { permanent, responseCode, code } = error as { permanent?: boolean; responseCode?: number; code?: string };
      this.logger.warn(`Mail not handed over: ${code ?? 'error'} ${responseCode ?? ''}`.trim());
      if (permanent) throw new UnrecoverableError(`SMTP refused the mail permanently (${responseCode})`);
      throw error;
    }
  }

  /** MAIL_FROM's address, under the product's name. */
  private sender(productName: string): { name: string; address: string } {
    const match = /<([^>]+)>\s*$/.exec(this.config.MAIL_FROM);
    return { name: productName, address: match ? match[1] : this.config.MAIL_FROM.trim() };
  }
}
