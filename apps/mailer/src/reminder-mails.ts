import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  APP_CONFIG,
  AppConfig,
  Clock,
  EntryRecord,
  invitationLink,
  Outages,
  Product,
  QueueName,
  REMINDER_CODES,
  reminderTimeLeft,
  reminderValues,
  Rounds,
  SecretBox,
  translator,
} from '@app/shared';
import { DataSource } from 'typeorm';
import { MailSender } from './mail-sender';
import { invitationReminderMail } from './mails/invitation';
import { MailLinks } from './mails/layout';
import { MailTemplates } from './templates/mail-templates';

/** Reminders taken per round; a round that took this many looks again at once. */
const BATCH = 50;
/** Up to $1 queued reminders taken off the outbox, on the queue's own partial index (outbox_reminders). */
export const TAKE_REMINDERS = `DELETE FROM outbox WHERE id IN (
    SELECT id FROM outbox WHERE queue = '${QueueName.Reminders}' ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED
  ) RETURNING data->>'entryId' AS entry_id`;
const IDLE_MS = 250;
/** A handover starts within this and is given up this long after it started. */
const SEND_BOUND_MS = 30_000;

interface Taken {
  entryId: string;
  hash: Buffer;
  sealed: Buffer;
  expiresAt: Date;
}

/**
 * Sends the claim-window reminders that the maintenance round queues in the outbox, with the same code
 * as the invitation. At most one per invitation: taking a reminder's outbox row also takes the code's
 * sealed copy out of its row, in one transaction committed before the handover, so neither a second
 * mailer, a repeated row nor a retry finds a code to send again. A reminder whose handover never
 * started is put back for the next round; one that failed once started is not tried again, as it may
 * have arrived.
 */
@Injectable()
export class ReminderMails implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(ReminderMails.name);
  private readonly rounds: Rounds;
  private readonly codes: SecretBox;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly sender: MailSender,
    private readonly clock: Clock,
    private readonly templates: MailTemplates,
    outages: Outages,
  ) {
    this.rounds = new Rounds(this.logger, outages);
    this.codes = new SecretBox(config.ENCRYPTION_KEY, REMINDER_CODES);
  }

  onApplicationBootstrap(): void {
    this.rounds.start('Reminder mails', () => this.sendOnce(), (more) => (more ? 0 : IDLE_MS));
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.rounds.stop();
  }

  /** Takes a batch of queued reminders and sends them; whether the batch was full. */
  private async sendOnce(): Promise<boolean> {
    const { rows, taken } = await this.take();
    await Promise.all(taken.map((reminder) => this.send(reminder)));
    return rows === BATCH;
  }

  /**
   * The outbox rows of a batch, deleted, and the codes they remind of, taken: still working, of an
   * entry still invited, their sealed copy cleared in the same commit.
   */
  private async take(): Promise<{ rows: number; taken: Taken[] }> {
    return this.db.transaction(async (manager) => {
      const [claimed]: [{ entry_id: string }[], number] = await manager.query(TAKE_REMINDERS, [BATCH]);
      if (claimed.length === 0) return { rows: 0, taken: [] };
      const [taken]: [Taken[], number] = await manager.query(
        `UPDATE invite_codes c SET sealed_code = NULL
         FROM (SELECT c.hash, c.sealed_code FROM invite_codes c JOIN entries e ON e.id = c.entry_id
               WHERE c.entry_id = ANY($1) AND c.sealed_code IS NOT NULL AND c.remind_at IS NULL AND c.recorded
                 AND e.state = 'invited' AND c.expires_at > $2
               ORDER BY c.hash FOR UPDATE OF c) AS due
         WHERE c.hash = due.hash
         RETURNING c.entry_id AS "entryId", c.hash, due.sealed_code AS sealed, c.expires_at AS "expiresAt"`,
        [claimed.map((row) => row.entry_id), this.clock.now()],
      );
      return { rows: claimed.length, taken };
    });
  }

  private async send(reminder: Taken): Promise<void> {
    const entry = await this.db.getRepository(EntryRecord).findOneBy({ id: reminder.entryId });
    if (!entry) return;
    const product = await this.db.getRepository(Product).findOneByOrFail({ id: entry.productId });
    const link = invitationLink(product.inviteUrl, this.config.PUBLIC_BASE_URL, this.codes.open(reminder.sealed));
    const now = this.clock.now();
    const leftMs = reminderTimeLeft(now, reminder.expiresAt);
    const t = translator(entry.locale);
    const content = (_: EntryRecord, links: MailLinks) => {
      const values = () => reminderValues(t, product.name, link, links, now, reminder.expiresAt);
      return this.templates.mail(product.id, 'reminder', t, values, links, () => invitationReminderMail(t, product.name, link, links, leftMs));
    };
    const { sent, untried } = await this.sender.sendEach([entry], product, content, {
      kind: 'reminder',
      startBy: Date.now() + SEND_BOUND_MS,
      boundMs: SEND_BOUND_MS,
    });
    if (sent.length > 0) return;
    if (untried.length > 0) {
      // Never started: nothing left, so the code goes back and the next maintenance round queues it again.
      await this.db.query(`UPDATE invite_codes SET sealed_code = $2, remind_at = $3 WHERE hash = $1`, [reminder.hash, reminder.sealed, this.clock.now()]);
      return;
    }
    this.logger.warn(`The reminder to ${reminder.entryId} was not handed over; it is not tried again, as it may have arrived`);
  }
}
