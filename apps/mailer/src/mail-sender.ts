import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { APP_CONFIG, AppConfig, Clock, EntryRecord, EntryToken, hashToken, newToken, Product } from '@app/shared';
import { UnrecoverableError } from 'bullmq';
import { DataSource } from 'typeorm';
import { MailTransport } from './mail-transport';
import { MailContent } from './mails/layout';

/** What every mail to an entry shares: its own unsubscribe link and headers, the sender, error handling. */
@Injectable()
export class MailSender {
  private readonly logger = new Logger(MailSender.name);

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly transport: MailTransport,
    private readonly clock: Clock,
  ) {}

  /**
   * Stores the hashes of a new unsubscribe token and of `confirmTokens`, then hands the mail over.
   * False when the entry is gone (nothing sent). Throws UnrecoverableError for a permanent refusal.
   */
  async send(
    entry: EntryRecord,
    product: Product,
    content: (unsubscribeUrl: string) => MailContent,
    options: { confirmTokens?: string[]; signal?: AbortSignal } = {},
  ): Promise<boolean> {
    const unsubscribe = newToken();
    const createdAt = this.clock.now();
    const stored = await storeForEntry(() =>
      this.db.getRepository(EntryToken).insert([
        ...(options.confirmTokens ?? []).map((token) => ({ hash: hashToken(token), entryId: entry.id, purpose: 'confirm' as const, createdAt })),
        { hash: hashToken(unsubscribe), entryId: entry.id, purpose: 'unsubscribe', createdAt },
      ]),
    );
    if (!stored) return false;
    const unsubscribeUrl = `${this.config.PUBLIC_BASE_URL}/unsubscribe/${unsubscribe}`;
    try {
      await this.transport.send({
        from: this.sender(product),
        to: entry.email,
        ...content(unsubscribeUrl),
        headers: { 'List-Unsubscribe': `<${unsubscribeUrl}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
        signal: options.signal,
      });
      return true;
    } catch (error) {
      // A 5xx for the recipient will not change on retry; anything else (a 4xx, a dropped connection) may.
      const { permanent, responseCode, code } = error as { permanent?: boolean; responseCode?: number; code?: string };
      this.logger.warn(`Mail to ${entry.id} not handed over: ${code ?? 'error'} ${responseCode ?? ''}`.trim());
      if (permanent) throw new UnrecoverableError(`SMTP refused the mail permanently (${responseCode})`);
      throw error;
    }
  }

  /** MAIL_FROM's address, under the product's sender name or else its name. */
  private sender(product: Product): { name: string; address: string } {
    const match = /<([^>]+)>\s*$/.exec(this.config.MAIL_FROM);
    return { name: product.senderName ?? product.name, address: match ? match[1] : this.config.MAIL_FROM.trim() };
  }
}

/**
 * Stores rows of an entry that its mail's links need, before the mail can go out; false when the entry
 * was deleted meanwhile (the rows' foreign key refuses them), so that nothing is sent.
 */
export async function storeForEntry(insert: () => Promise<unknown>): Promise<boolean> {
  try {
    await insert();
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === FOREIGN_KEY_VIOLATION) return false;
    throw error;
  }
}

const FOREIGN_KEY_VIOLATION = '23503';
