import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { APP_CONFIG, AppConfig, Clock, EntryRecord, EntryToken, hashToken, newToken, Product } from '@app/shared';
import { UnrecoverableError } from 'bullmq';
import { setMaxListeners } from 'node:events';
import { DataSource, EntityManager } from 'typeorm';
import { MailTransport } from './mail-transport';
import { MailContent } from './mails/layout';

/** What a mail needs of its entry and of its product. */
export type MailEntry = Pick<EntryRecord, 'id' | 'email'>;
export type MailProduct = Pick<Product, 'name' | 'senderName'>;

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
    entry: MailEntry,
    product: MailProduct,
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
    await this.handOver(entry, product, content, unsubscribe, options.signal);
    return true;
  }

  /**
   * Mails to several entries of one product: stores their unsubscribe tokens and what `store` adds
   * (rows their links need) in one transaction, then hands each mail over on its own, side by side in
   * the pool. Returns the entries whose mail was handed over: not an entry deleted meanwhile, nor one
   * whose mail failed (logged).
   */
  async sendEach(
    entries: EntryRecord[],
    product: Product,
    content: (entry: EntryRecord, unsubscribeUrl: string) => MailContent,
    options: { store?: (manager: EntityManager, entries: EntryRecord[]) => Promise<unknown>; signal?: AbortSignal } = {},
  ): Promise<EntryRecord[]> {
    const unsubscribes = new Map(entries.map((entry) => [entry.id, newToken()]));
    const createdAt = this.clock.now();
    const present = await this.db.transaction(async (manager) => {
      // Locked against deletion until the rows are in: an entry deleted meanwhile is left out, not an error.
      const rows: { id: string }[] = await manager.query(`SELECT id FROM entries WHERE id = ANY($1) FOR KEY SHARE`, [entries.map((entry) => entry.id)]);
      const ids = new Set(rows.map((row) => row.id));
      const present = entries.filter((entry) => ids.has(entry.id));
      if (present.length === 0) return present;
      await manager
        .getRepository(EntryToken)
        .insert(present.map((entry) => ({ hash: hashToken(unsubscribes.get(entry.id)!), entryId: entry.id, purpose: 'unsubscribe' as const, createdAt })));
      await options.store?.(manager, present);
      return present;
    });
    // Each mail in the pool listens to the one signal until it is done.
    if (options.signal) setMaxListeners(0, options.signal);
    const sent = await Promise.all(
      present.map((entry) =>
        this.handOver(entry, product, (url) => content(entry, url), unsubscribes.get(entry.id)!, options.signal).then(
          () => entry,
          () => undefined,
        ),
      ),
    );
    return sent.filter((entry) => entry !== undefined);
  }

  /** Hands one mail over with its unsubscribe link and headers; throws UnrecoverableError for a permanent refusal. */
  private async handOver(entry: MailEntry, product: MailProduct, content: (unsubscribeUrl: string) => MailContent, unsubscribe: string, signal?: AbortSignal): Promise<void> {
    const unsubscribeUrl = `${this.config.PUBLIC_BASE_URL}/unsubscribe/${unsubscribe}`;
    try {
      await this.transport.send({
        from: this.sender(product),
        to: entry.email,
        ...content(unsubscribeUrl),
        headers: { 'List-Unsubscribe': `<${unsubscribeUrl}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
        signal,
      });
    } catch (error) {
      // A 5xx for the recipient will not change on retry; anything else (a 4xx, a dropped connection) may.
      const { permanent, responseCode, code } = error as { permanent?: boolean; responseCode?: number; code?: string };
      this.logger.warn(`Mail to ${entry.id} not handed over: ${code ?? 'error'} ${responseCode ?? ''}`.trim());
      if (permanent) throw new UnrecoverableError(`SMTP refused the mail permanently (${responseCode})`);
      throw error;
    }
  }

  /** MAIL_FROM's address, under the product's sender name or else its name. */
  private sender(product: MailProduct): { name: string; address: string } {
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
