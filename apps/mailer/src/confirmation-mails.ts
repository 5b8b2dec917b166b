import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { APP_CONFIG, AppConfig, confirmationLink, confirmationValues, groupCommits, newToken, Outages, QueueName, removeOutboxRows, Rounds, translator } from '@app/shared';
import { UnrecoverableError } from 'bullmq';
import { DataSource } from 'typeorm';
import { MailEntry, MailProduct, MailSender, PacedOut } from './mail-sender';
import { MailLinks } from './mails/layout';
import { confirmationMail } from './mails/confirmation';
import { MailTemplates } from './templates/mail-templates';

/** Confirmation mails in flight per process: enough to keep the SMTP pool busy. */
const SLOTS = 50;
const IDLE_MS = 100;
/** How long a claimed row is the claiming mailer's; a mailer that died leaves its rows this long. */
const CONFIRMATION_LEASE_MS = 2 * 60_000;
/**
 * A handover starts within this (waiting for a free connection) and is given up this long after it
 * started, well within the lease together, so that no second mailer takes a mail still being sent.
 */
const SEND_BOUND_MS = 30_000;
/** While SMTP fails temporarily: 12 attempts, 15 s after the first and doubling, the last after about 8.5 hours. */
export const CONFIRMATION_ATTEMPTS = 12;
const FIRST_RETRY_MS = 15_000;
/** The rows that are due, in due order then row order, from their index (outbox_mail_due). */
const DUE = `COALESCE(leased_until, '-infinity')`;
/**
 * How long the deletion of a handed-over mail's row waits for others: the pool's mails end one by one,
 * so without it each took a statement (and a commit) of its own. A mailer killed within it sends
 * those mails again once their lease ends, as it does the mails in flight.
 */
const REMOVE_GATHER_MS = 20;

interface Claimed {
  id: string;
  entryId: string;
  /** The sign-up's X-Request-Id, for the log. */
  requestId: string | null;
  attempts: number;
}

/**
 * Sends the confirmation mails that sign-ups leave in the outbox, straight from its rows, with no job
 * in Redis: a mailer claims due rows in batches (SKIP LOCKED: any number of mailers may run), as many
 * as it has free slots, and the claim leases them, so that rows of a mailer that died are taken again
 * when their lease ends. A mail handed over (or whose entry is gone or no longer pending) deletes its
 * row; a temporary failure leaves the row waiting for its next attempt; a permanent refusal or the
 * last attempt gives it up. The deletions of the mails handed over within REMOVE_GATHER_MS of each
 * other are one statement.
 */
@Injectable()
export class ConfirmationMails implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(ConfirmationMails.name);
  private readonly rounds: Rounds;
  private readonly sending = new Set<Promise<void>>();
  private roomMade: (() => void) | undefined;
  private closing = false;
  private readonly remove = groupCommits<string, void>(async (rowIds) => {
    await removeOutboxRows(this.db, rowIds);
    return rowIds.map(() => undefined);
  }, 200, REMOVE_GATHER_MS);

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly sender: MailSender,
    private readonly templates: MailTemplates,
    outages: Outages,
  ) {
    this.rounds = new Rounds(this.logger, outages);
  }

  onApplicationBootstrap(): void {
    this.closing = false;
    this.rounds.start('Confirmation mails', () => this.claimOnce(), (more) => (more ? 0 : IDLE_MS));
  }

  /** Claims nothing more and lets the mails under way end (each within twice SEND_BOUND_MS). */
  async beforeApplicationShutdown(): Promise<void> {
    this.closing = true;
    this.roomMade?.();
    await this.rounds.stop();
    await Promise.allSettled(this.sending);
  }

  /** Waits until half the slots are free, then claims as many mails as there are; whether more may be due. */
  private async claimOnce(): Promise<boolean> {
    while (this.sending.size > SLOTS / 2 && !this.closing) await new Promise<void>((resolve) => (this.roomMade = resolve));
    if (this.closing) return false;
    const room = SLOTS - this.sending.size;
    // Planned at every call, not prepared: a generic plan of `LIMIT $1` expects a tenth of the table and
    // joins the claimed ids against a sequential scan of the whole outbox (16 ms instead of 1.4 with 42,000 rows).
    const claimed: Claimed[] = (
      await this.db.query(
        `UPDATE outbox SET leased_until = now() + $2 * interval '1 millisecond', attempts = attempts + 1
         WHERE id IN (
           SELECT id FROM outbox WHERE queue = '${QueueName.Mail}' AND ${DUE} < now() ORDER BY ${DUE}, id LIMIT $1 FOR UPDATE SKIP LOCKED
         ) RETURNING id, data->>'entryId' AS "entryId", data->>'httpRequestId' AS "requestId", attempts`,
        [room, CONFIRMATION_LEASE_MS],
      )
    )[0];
    for (const mail of claimed) {
      const work = this.send(mail).finally(() => {
        this.sending.delete(work);
        this.roomMade?.();
      });
      this.sending.add(work);
    }
    return claimed.length === room;
  }

  private async send(mail: Claimed): Promise<void> {
    try {
      try {
        await this.sendConfirmation(mail);
      } catch (error) {
        if (error instanceof PacedOut) {
          // Not an attempt: the row waits until its receiving domain's window opens.
          await this.db.query(`UPDATE outbox SET leased_until = now() + $2 * interval '1 millisecond', attempts = attempts - 1 WHERE id = $1`, [mail.id, error.waitMs]);
          return;
        }
        if (!(error instanceof UnrecoverableError) && mail.attempts < CONFIRMATION_ATTEMPTS) {
          const retryInMs = FIRST_RETRY_MS * 2 ** (mail.attempts - 1);
          await this.db.query(`UPDATE outbox SET leased_until = now() + $2 * interval '1 millisecond' WHERE id = $1`, [mail.id, retryInMs]);
          return;
        }
        this.logger.warn({ msg: `The confirmation mail to ${mail.entryId} is given up after ${mail.attempts} attempt(s)`, requestId: mail.requestId });
      }
      await this.remove(mail.id);
    } catch (error) {
      this.logger.warn({ msg: `The confirmation mail to ${mail.entryId} is left until its lease ends: ${(error as Error).message}`, requestId: mail.requestId });
    }
  }

  /**
   * The confirmation mail of a pending entry. Its links' tokens are made here, so that no code is ever
   * stored in the clear; each mail gets its own, and older mails' links keep working.
   */
  private async sendConfirmation({ entryId, requestId }: Claimed): Promise<void> {
    const confirm = newToken();
    const confirmUrl = confirmationLink(this.config.PUBLIC_BASE_URL, confirm);
    const content = (product: MailProduct, links: MailLinks, entry: MailEntry) => {
      const t = translator(entry.locale);
      const values = () => confirmationValues(t, product.name, confirmUrl, links, this.config.PENDING_ENTRY_TTL);
      return this.templates.mail(product.id, 'confirmation', t, values, links, () => confirmationMail(t, product.name, confirmUrl, links, this.config.PENDING_ENTRY_TTL));
    };
    await this.sender.sendToPending(entryId, content, {
      confirmTokens: [confirm],
      startBy: Date.now() + SEND_BOUND_MS,
      boundMs: SEND_BOUND_MS,
      requestId: requestId ?? undefined,
    });
  }
}
