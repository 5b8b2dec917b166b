import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, AppConfig, DEV_INBOX_SIZE, DevMail, devInboxKey, RedisClient } from '@app/shared';
import { randomUUID } from 'node:crypto';
import nodemailer, { SendMailOptions, Transporter } from 'nodemailer';

/** The SMTP connection pool every mailer process keeps (the invite-next benchmark's baseline uses it too). */
export const SMTP_POOL = { pool: true, maxConnections: 5 } as const;

/**
 * Hands mails to SMTP (pooled connections) or, while SMTP_URL is unset, to the development inbox
 * that the API shows at /dev/mail. A returned promise means the server accepted every recipient.
 */
@Injectable()
export class MailTransport implements OnApplicationShutdown {
  private readonly transporter: Transporter;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(RedisClient) private readonly redis: RedisClient,
  ) {
    this.transporter = config.SMTP_URL
      ? nodemailer.createTransport({
          url: config.SMTP_URL,
          ...SMTP_POOL,
          connectionTimeout: 10_000,
          greetingTimeout: 10_000,
          socketTimeout: 30_000,
        })
      : nodemailer.createTransport({ jsonTransport: true });
  }

  async send(mail: SendMailOptions): Promise<void> {
    const info = await this.transporter.sendMail(mail);
    if (!this.config.SMTP_URL) await this.keepInDevInbox(JSON.parse(info.message as string));
  }

  onApplicationShutdown(): void {
    this.transporter.close();
  }

  private async keepInDevInbox(message: {
    from: { address: string; name: string };
    to: { address: string }[];
    subject: string;
    text: string;
    html: string;
    headers: Record<string, string>;
  }): Promise<void> {
    const mail: DevMail = {
      id: randomUUID(),
      receivedAt: new Date().toISOString(),
      from: message.from.name ? `${message.from.name} <${message.from.address}>` : message.from.address,
      to: message.to.map((to) => to.address).join(', '),
      subject: message.subject,
      text: message.text,
      html: message.html,
      headers: message.headers ?? {},
    };
    const key = devInboxKey(this.config.QUEUE_PREFIX);
    await this.redis.multi().lpush(key, JSON.stringify(mail)).ltrim(key, 0, DEV_INBOX_SIZE - 1).exec();
  }
}
