import { Controller, Get, Header, Inject, Param, UseGuards } from '@nestjs/common';
import { APP_CONFIG, AppConfig, devInboxKey, DevMail, html, RedisClient } from '@app/shared';
import { ApiError } from '../common/api-error';
import { page } from '../common/html';
import { ThisMachineOnlyGuard } from './this-machine-only.guard';

/** The development inbox at /dev/mail, registered only while SMTP_URL is unset, for this machine's browsers only. */
@Controller('dev/mail')
@UseGuards(ThisMachineOnlyGuard)
export class DevMailController {
  constructor(
    @Inject(RedisClient) private readonly redis: RedisClient,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get()
  @Header('Content-Type', 'text/html; charset=utf-8')
  async inbox(): Promise<string> {
    const mails = await this.mails();
    const rows = mails.map(
      (mail) => html`<li><a href="/dev/mail/${mail.id}">${mail.subject}</a><br><span class="muted">to ${mail.to} · ${mail.receivedAt}</span></li>`,
    );
    return page(
      'Development inbox',
      html`<h1>Development inbox</h1><p class="muted">Mails the mailer would have sent (SMTP_URL is unset). Newest first.</p>
<ul>${rows.length ? rows : html`<li>No mail yet.</li>`}</ul>`,
    );
  }

  /** One mail: its text part with the links made clickable. */
  @Get(':id')
  @Header('Content-Type', 'text/html; charset=utf-8')
  async mail(@Param('id') id: string): Promise<string> {
    const mail = (await this.mails()).find((candidate) => candidate.id === id);
    if (!mail) throw new ApiError('not_found', 'No such mail in the development inbox.');
    const text = mail.text
      .split(/(https?:\/\/\S+)/)
      .map((part, i) => (i % 2 ? html`<a href="${part}">${part}</a>` : html`${part}`));
    return page(
      mail.subject,
      html`<p class="muted"><a href="/dev/mail">← Inbox</a></p><h1>${mail.subject}</h1>
<p class="muted">From ${mail.from}<br>To ${mail.to}</p><pre style="white-space:pre-wrap">${text}</pre>`,
    );
  }

  private async mails(): Promise<DevMail[]> {
    const raw = await this.redis.lrange(devInboxKey(this.config.QUEUE_PREFIX), 0, -1);
    return raw.map((item) => JSON.parse(item) as DevMail);
  }
}

