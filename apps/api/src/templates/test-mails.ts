import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, AppConfig, DEV_INBOX_SIZE, DevMail, devInboxKey, dkimFor, Product, RedisClient, TemplateSource } from '@app/shared';
import { randomUUID } from 'node:crypto';
import nodemailer, { Transporter } from 'nodemailer';

/**
 * A template's test mail to the team member who asked for it, sent by the API itself while they wait
 * (one mail, no queue): over SMTP, or into the development inbox while SMTP_URL is unset.
 */
@Injectable()
export class TestMails implements OnApplicationShutdown {
  private transporter: Transporter | undefined;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(RedisClient) private readonly redis: RedisClient,
  ) {}

  async send(to: string, product: Pick<Product, 'name' | 'senderName'>, mail: TemplateSource): Promise<void> {
    const match = /<([^>]+)>\s*$/.exec(this.config.MAIL_FROM);
    const from = { name: product.senderName ?? product.name, address: match ? match[1] : this.config.MAIL_FROM.trim() };
    const subject = `[Test] ${mail.subject}`;
    if (!this.config.SMTP_URL) return this.keepInDevInbox({ from: `${from.name} <${from.address}>`, to, subject, text: mail.text, html: mail.html });
    this.transporter ??= nodemailer.createTransport({ url: this.config.SMTP_URL, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 });
    const dkim = dkimFor(this.config.DKIM, from.address);
    await this.transporter.sendMail({ from, to, subject, text: mail.text, html: mail.html, ...(dkim && { dkim }), signal: AbortSignal.timeout(30_000) });
  }

  onApplicationShutdown(): void {
    this.transporter?.close();
  }

  private async keepInDevInbox(mail: Omit<DevMail, 'id' | 'receivedAt' | 'headers'>): Promise<void> {
    const kept: DevMail = { id: randomUUID(), receivedAt: new Date().toISOString(), ...mail, headers: {} };
    const key = devInboxKey(this.config.QUEUE_PREFIX);
    await this.redis.multi().lpush(key, JSON.stringify(kept)).ltrim(key, 0, DEV_INBOX_SIZE - 1).exec();
  }
}
