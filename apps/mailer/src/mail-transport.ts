import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, AppConfig, DEV_INBOX_SIZE, DevMail, devInboxKey, dkimFor, RedisClient, withDeadline } from '@app/shared';
import { randomUUID } from 'node:crypto';
import nodemailer, { SendMailOptions, Transporter } from 'nodemailer';

/** The SMTP connection pool every mailer process keeps (the invite-next benchmark's baseline uses it too). */
export const SMTP_POOL = { pool: true, maxConnections: 5 } as const;

/** A mail that did not get a connection before its `startBy`: nothing of it was sent. */
export class HandoverNotStarted extends Error {
  constructor() {
    super('No connection came free before the mail had to start');
  }
}

/** The From address of a mail, whose domain picks its DKIM key. */
function senderAddress(from: SendMailOptions['from']): string {
  if (typeof from === 'string') return from;
  return (from && 'address' in from && from.address) || '';
}

/** When a mail's handover may start, and how long it may take once it has. */
export interface HandoverBounds {
  /** Epoch ms after which the mail does not start (it fails with HandoverNotStarted). */
  startBy?: number;
  boundMs: number;
}

/**
 * Hands mails to SMTP (pooled connections) or, while SMTP_URL is unset, to the development inbox
 * that the API shows at /dev/mail. A returned promise means the server accepted every recipient.
 * A mail waits here for one of the pool's connections, not in the pool's own queue, so that its time
 * bound counts its own conversation with the server, not the mails ahead of it; the mail that must
 * start soonest goes first, so that an invitation someone waits for is not left behind a backlog of
 * confirmation mails that have many seconds to start.
 */
@Injectable()
export class MailTransport implements OnApplicationShutdown {
  private readonly transporter: Transporter;
  private busy = 0;
  /** Mails waiting for a connection, by startBy. */
  private readonly waiting: { startBy: number; take: () => void }[] = [];

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

  /**
   * `accepted` runs once the server has taken the mail, before its connection goes to another mail, so
   * that a mailer that dies leaves at most one mail per connection whose handover was not recorded.
   */
  async send(mail: SendMailOptions, { startBy, boundMs }: HandoverBounds, accepted?: () => unknown): Promise<void> {
    await this.connection(startBy);
    try {
      const dkim = dkimFor(this.config.DKIM, senderAddress(mail.from));
      const info = await withDeadline(boundMs, (signal) => this.transporter.sendMail({ ...mail, ...(dkim && { dkim }), signal }));
      if (!this.config.SMTP_URL) await this.keepInDevInbox(JSON.parse(info.message as string));
      await accepted?.();
    } finally {
      // Handed on to the next mail waiting, or freed.
      const next = this.waiting.shift();
      if (next) next.take();
      else this.busy--;
    }
  }

  onApplicationShutdown(): void {
    this.transporter.close();
  }

  /** Resolves once one of the pool's connections is this mail's; rejects at `startBy` if none came free. */
  private async connection(startBy: number | undefined): Promise<void> {
    if (startBy !== undefined && Date.now() >= startBy) throw new HandoverNotStarted();
    if (this.busy < SMTP_POOL.maxConnections) {
      this.busy++;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const waiter = {
        startBy: startBy ?? Infinity,
        take: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      if (startBy !== undefined) {
        timer = setTimeout(() => {
          this.waiting.splice(this.waiting.indexOf(waiter), 1);
          reject(new HandoverNotStarted());
        }, startBy - Date.now());
        // A mail still waiting does not keep a stopping process alive.
        timer.unref();
      }
      const after = this.waiting.findIndex((other) => other.startBy > waiter.startBy);
      this.waiting.splice(after === -1 ? this.waiting.length : after, 0, waiter);
    });
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
