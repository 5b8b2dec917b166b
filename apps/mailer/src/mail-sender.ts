import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  APP_CONFIG,
  AppConfig,
  applyBounce,
  Clock,
  countedIn,
  domainOf,
  DomainPace,
  EntryRecord,
  feedbackCounter,
  groupCommits,
  hashToken,
  keyedQuery,
  Locale,
  mailLinks,
  Metrics,
  Mode,
  newToken,
  Product,
  RedisClient,
  TokenPurpose,
} from '@app/shared';
import { randomUUID } from 'node:crypto';
import { UnrecoverableError } from 'bullmq';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource, EntityManager } from 'typeorm';
import { HandoverBounds, HandoverNotStarted, MailTransport } from './mail-transport';
import { MailContent, MailLinks } from './mails/layout';

/** What a mail needs of its entry and of its product. */
export type MailEntry = Pick<EntryRecord, 'id' | 'email' | 'locale'>;
export type MailProduct = Pick<Product, 'id' | 'name' | 'senderName'>;
/** What a mail is, as its metrics count it. */
type MailKind = 'confirmation' | 'invitation' | 'reminder' | 'my-data';

/** A mail whose receiving domain's window (MAIL_DOMAIN_PACE) opens only after it had to start: nothing was sent. */
export class PacedOut extends HandoverNotStarted {
  constructor(readonly waitMs: number) {
    super();
    this.message = `The receiving domain's pace has room again in ${waitMs} ms`;
  }
}

/** The publishable key in use of the entry's product and mode (the newest), which names its my-data page. */
const PUBLISHABLE_KEY = `(SELECT k.hint FROM api_keys k WHERE k.product_id = e.product_id AND k.mode = e.mode AND k.kind = 'publishable'
  AND k.revoked_at IS NULL ORDER BY k.created_at DESC LIMIT 1)`;

/**
 * The statement behind MailSender's mails to pending entries ($1 their ids; $2–$4 each token's entry,
 * hash and purpose; $5 now): the entries locked by id, and those still pending kept. Asked for
 * `state = 'pending'` in the same scan, a plan made while entries' statistics were small walked the
 * whole partial index of pending entries (entries_pending_age) for every batch of a launch.
 */
export const PENDING_MAILS = `WITH locked AS MATERIALIZED (
    SELECT e.id, e.email, e.locale, e.state, p.id AS product_id, e.mode, p.name, p.sender_name, ${PUBLISHABLE_KEY} AS key FROM entries e JOIN products p ON p.id = e.product_id
    WHERE e.id = ANY($1) ORDER BY e.id FOR KEY SHARE OF e
  ), entry AS (
    SELECT * FROM locked WHERE state = 'pending'
  ), stored AS (
    INSERT INTO entry_tokens (hash, entry_id, purpose, created_at)
    SELECT token.hash, entry.id, token.purpose, $5
    FROM entry JOIN unnest($2::text[], $3::bytea[], $4::text[]) AS token (entry_id, hash, purpose) ON token.entry_id = entry.id
  ), counted AS (${countedIn('entry', '$5', `'sent'`)})
  SELECT id, email, locale, product_id, mode, name, sender_name, key FROM entry`;

/** What every mail to an entry shares: its own unsubscribe link and headers, the sender, error handling. */
@Injectable()
export class MailSender {
  private readonly logger = new Logger(MailSender.name);
  private readonly mails;
  private readonly countFeedback;
  private readonly paced;
  private readonly pace: DomainPace;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly transport: MailTransport,
    private readonly clock: Clock,
    metrics: Metrics,
    @Inject(RedisClient) redis: RedisClient,
  ) {
    this.pace = new DomainPace(redis, config.QUEUE_PREFIX, config.MAIL_DOMAIN_PACE);
    this.paced = metrics.counter({
      name: 'waitlist_mails_paced_total',
      help: 'Mails that waited for their receiving domain\'s pace (MAIL_DOMAIN_PACE): in process, or put off for later (not sent now)',
      labelNames: ['kind', 'outcome'],
    });
    this.mails = metrics.counter({
      name: 'waitlist_mails_total',
      help: 'Mails by kind and outcome: handed over to SMTP, refused for good (5xx), or failed for now',
      labelNames: ['kind', 'outcome'],
    });
    this.countFeedback = feedbackCounter(metrics);
  }

  /**
   * The mail of a pending entry, in one statement before the handover: the entry (locked against
   * deletion until the statement ends), its product's names, and the hashes of a new unsubscribe token
   * and of `confirmTokens` stored. False when the entry is gone or no longer pending (nothing sent).
   * Throws UnrecoverableError for a permanent refusal.
   */
  async sendToPending(
    entryId: string,
    content: (product: MailProduct, links: MailLinks, entry: MailEntry) => Promise<MailContent>,
    options: HandoverBounds & { confirmTokens: string[]; requestId?: string },
  ): Promise<boolean> {
    const unsubscribe = newToken();
    const tokens = [...options.confirmTokens.map((token) => ({ token, purpose: 'confirm' as const })), { token: unsubscribe, purpose: 'unsubscribe' as const }];
    const found = await this.storeForPending({ entryId, tokens: tokens.map(({ token, purpose }) => ({ hash: hashToken(token), purpose })) });
    if (!found) return false;
    const entry = { id: entryId, email: found.email, locale: found.locale };
    await this.handOver('confirmation', entry, found.product, (links) => content(found.product, links, entry), { unsubscribe, publishableKey: found.publishableKey }, options);
    return true;
  }

  /**
   * sendToPending's statement for the mails being prepared at the same time, one per batch: the
   * entries still pending (locked against deletion, in id order, until it ends) with their languages and
   * their products' names, each mail's token hashes stored for its entry, and the mails counted for the
   * overview's rates.
   */
  private readonly storeForPending = groupCommits<
    { entryId: string; tokens: { hash: Buffer; purpose: TokenPurpose }[] },
    { email: string; locale: Locale; product: MailProduct; publishableKey: string | null } | null
  >(
    async (mails) => {
      const tokens = mails.flatMap(({ entryId, tokens }) => tokens.map((token) => ({ entryId, ...token })));
      const now = this.clock.now();
      const rows = await keyedQuery<{ id: string; email: string; locale: Locale; product_id: string; mode: Mode; name: string; sender_name: string | null; key: string | null }>(
        this.db,
        PENDING_MAILS,
        [mails.map((mail) => mail.entryId), tokens.map((token) => token.entryId), tokens.map((token) => token.hash), tokens.map((token) => token.purpose), now],
      );
      const pending = new Map(
        rows.map((row) => [row.id, { email: row.email, locale: row.locale, product: { id: row.product_id, name: row.name, senderName: row.sender_name }, publishableKey: row.key }]),
      );
      return mails.map((mail) => pending.get(mail.entryId) ?? null);
    },
  );

  /**
   * Mails to several entries of one product: stores their unsubscribe tokens and what `store` adds
   * (rows their links need) in one transaction, then hands each mail over on its own, side by side in
   * the pool, each within `boundMs` of its start and none starting after `startBy`; `handedOver` runs
   * for each mail as soon as the server took it, before its connection takes another mail. Returns the entries whose mail was handed over (not
   * an entry deleted meanwhile, nor one whose mail failed, logged), those whose mail never started, and
   * the longest wait for a receiving domain's pace among them (0: none was paced out).
   */
  async sendEach<E extends MailEntry>(
    entries: E[],
    product: Product,
    content: (entry: E, links: MailLinks) => Promise<MailContent>,
    options: HandoverBounds & {
      store?: (manager: EntityManager, entries: E[]) => Promise<unknown>;
      handedOver?: (entry: E) => Promise<unknown>;
      requestId?: string;
      /** An invitation unless said otherwise (a claim window's reminder), as the metrics and the log name it. */
      kind?: MailKind;
    },
  ): Promise<{ sent: E[]; untried: E[]; pacedForMs: number }> {
    const unsubscribes = new Map(entries.map((entry) => [entry.id, newToken()]));
    const keys = new Map<string, string | null>();
    const createdAt = this.clock.now();
    const present = await this.db.transaction(async (manager) => {
      // Locked against deletion until the rows are in: an entry deleted meanwhile is left out, not an error.
      // One statement: the locks, the unsubscribe tokens and the mails counted for the overview's rates.
      const rows = await keyedQuery<{ id: string; key: string | null }>(
        manager.queryRunner!,
        `WITH entry AS (
           SELECT e.id, e.product_id, e.mode, ${PUBLISHABLE_KEY} AS key FROM entries e WHERE e.id = ANY($1::text[]) ORDER BY e.id FOR KEY SHARE OF e
         ), stored AS (
           INSERT INTO entry_tokens (hash, entry_id, purpose, created_at)
           SELECT token.hash, entry.id, 'unsubscribe', $3 FROM entry JOIN unnest($1::text[], $2::bytea[]) AS token (entry_id, hash) ON token.entry_id = entry.id
         ), counted AS (${countedIn('entry', '$3', `'sent'`)})
         SELECT id, key FROM entry`,
        [entries.map((entry) => entry.id), entries.map((entry) => hashToken(unsubscribes.get(entry.id)!)), createdAt],
      );
      for (const row of rows) keys.set(row.id, row.key);
      const present = entries.filter((entry) => keys.has(entry.id));
      if (present.length > 0) await options.store?.(manager, present);
      return present;
    });
    let pacedForMs = 0;
    const outcomes = await Promise.all(
      present.map(async (entry) => {
        try {
          await this.handOver(
            options.kind ?? 'invitation',
            entry,
            product,
            (links) => content(entry, links),
            { unsubscribe: unsubscribes.get(entry.id)!, publishableKey: keys.get(entry.id) ?? null },
            { ...options, accepted: () => options.handedOver?.(entry) },
          );
        } catch (error) {
          if (error instanceof PacedOut) pacedForMs = Math.max(pacedForMs, error.waitMs);
          return error instanceof HandoverNotStarted ? 'untried' : 'failed';
        }
        return 'sent';
      }),
    );
    return { sent: present.filter((_, i) => outcomes[i] === 'sent'), untried: present.filter((_, i) => outcomes[i] === 'untried'), pacedForMs };
  }

  /** Hands one mail over with its unsubscribe link and headers; throws UnrecoverableError for a permanent refusal. */
  private async handOver(
    kind: MailKind,
    entry: MailEntry,
    product: MailProduct,
    content: (links: MailLinks) => Promise<MailContent>,
    { unsubscribe, publishableKey }: { unsubscribe: string; publishableKey: string | null },
    { startBy, boundMs, requestId, accepted }: HandoverBounds & { requestId?: string; accepted?: () => unknown },
  ): Promise<void> {
    const links = mailLinks(this.config.PUBLIC_BASE_URL, unsubscribe, publishableKey);
    try {
      const mail = await content(links);
      await this.waitForPace(kind, entry.email, startBy);
      await this.transport.send(
        {
          from: this.sender(product),
          to: entry.email,
          ...mail,
          headers: { 'List-Unsubscribe': `<${links.unsubscribe}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
        },
        { startBy, boundMs },
        accepted,
      );
      this.mails.inc({ kind, outcome: 'handed_over' });
      this.logger.log({ msg: `The ${kind} mail to ${entry.id} was handed over`, requestId });
    } catch (error) {
      if (error instanceof HandoverNotStarted) throw error;
      // A 5xx for the recipient will not change on retry; anything else (a 4xx, a dropped connection) may.
      const { permanent, responseCode, code } = error as { permanent?: boolean; responseCode?: number; code?: string };
      this.logger.warn({ msg: `The ${kind} mail to ${entry.id} was not handed over: ${code ?? 'error'} ${responseCode ?? ''}`.trim(), requestId });
      this.mails.inc({ kind, outcome: permanent ? 'refused' : 'failed' });
      if (permanent) {
        await this.refused(entry, requestId);
        throw new UnrecoverableError(`SMTP refused the mail permanently (${responseCode})`);
      }
      throw error;
    }
  }

  /**
   * With MAIL_BOUNCE_ON_REFUSAL, a 5xx for the recipient is a hard bounce of its address, applied by the
   * same rule as the providers' (applyBounce); each refusal is an event of its own. Not applied, it is
   * logged: the mail's outcome stays what it was.
   */
  private async refused(entry: MailEntry, requestId: string | undefined): Promise<void> {
    if (!this.config.MAIL_BOUNCE_ON_REFUSAL) return;
    const at = this.clock.now();
    const bounce = { provider: 'smtp', eventId: randomUUID(), kind: 'hard_bounce', address: entry.email, at } as const;
    try {
      await this.db.transaction((manager) => applyBounce(manager, bounce, { now: at, softBounceLimit: this.config.MAIL_SOFT_BOUNCE_LIMIT }));
      this.countFeedback(bounce.kind);
    } catch (error) {
      this.logger.error({ msg: `The refusal of a mail to ${entry.id} could not be applied as a hard bounce: ${(error as Error).message}`, requestId });
    }
  }

  /**
   * A place in the receiving domain's pace: waited for here while the window opens before `startBy`,
   * else PacedOut, and the caller puts the mail off (an outbox row waits, an invitation goes back untried).
   */
  private async waitForPace(kind: MailKind, email: string, startBy: number | undefined): Promise<void> {
    for (;;) {
      const waitMs = await this.pace.take(domainOf(email), this.clock.now().getTime());
      if (waitMs === 0) return;
      if (startBy !== undefined && Date.now() + waitMs >= startBy) {
        this.paced.inc({ kind, outcome: 'put_off' });
        throw new PacedOut(waitMs);
      }
      this.paced.inc({ kind, outcome: 'waited' });
      await sleep(waitMs);
    }
  }

  /** MAIL_FROM's address, under the product's sender name or else its name. */
  private sender(product: MailProduct): { name: string; address: string } {
    const match = /<([^>]+)>\s*$/.exec(this.config.MAIL_FROM);
    return { name: product.senderName ?? product.name, address: match ? match[1] : this.config.MAIL_FROM.trim() };
  }
}
