import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { APP_CONFIG, AppConfig, Clock, EntryRecord, MY_DATA_LINK_MS, MyDataLinks, Outages, Product, QueueName, Rounds, translator } from '@app/shared';
import { DataSource, In } from 'typeorm';
import { MailSender } from './mail-sender';
import { myDataMail } from './mails/my-data';

/** Mails taken per round; a round that took this many looks again at once. */
const BATCH = 50;
/** Up to $1 queued my-data mails, due and taken off the outbox; on the queue's own partial index (outbox_personal_data). */
export const TAKE_MY_DATA_MAILS = `DELETE FROM outbox WHERE id IN (
    SELECT id FROM outbox WHERE queue = '${QueueName.PersonalData}' AND COALESCE(leased_until, '-infinity') < now() ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED
  ) RETURNING data->>'entryId' AS "entryId", data->>'httpRequestId' AS "requestId"`;
const IDLE_MS = 250;
/** A handover starts within this and is given up this long after it started. */
const SEND_BOUND_MS = 30_000;

/**
 * Sends the my-data links that the my-data form queues in the outbox. Each link is signed here, at
 * the handover, so no link is ever stored. A row is deleted as it is taken: a mail that failed is not
 * tried again, since the person can ask again at once (a lost link costs a click, a repeated one
 * nothing worse).
 */
@Injectable()
export class MyDataMails implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(MyDataMails.name);
  private readonly rounds: Rounds;
  private readonly links: MyDataLinks;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly sender: MailSender,
    private readonly clock: Clock,
    outages: Outages,
  ) {
    this.rounds = new Rounds(this.logger, outages);
    this.links = new MyDataLinks(config.ENCRYPTION_KEY);
  }

  onApplicationBootstrap(): void {
    this.rounds.start('My-data mails', () => this.sendOnce(), (more) => (more ? 0 : IDLE_MS));
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.rounds.stop();
  }

  /** Takes a batch of queued mails and sends them; whether the batch was full. */
  private async sendOnce(): Promise<boolean> {
    const [taken]: [{ entryId: string; requestId: string | null }[], number] = await this.db.query(TAKE_MY_DATA_MAILS, [BATCH]);
    if (taken.length === 0) return false;
    // One mail per request, an entry's included: the person asked each time. An entry gone meanwhile gets none.
    const entries = new Map((await this.db.getRepository(EntryRecord).findBy({ id: In(taken.map((mail) => mail.entryId)) })).map((entry) => [entry.id, entry]));
    await Promise.all(taken.map(({ entryId, requestId }) => entries.has(entryId) && this.send(entries.get(entryId)!, requestId ?? undefined)));
    return taken.length === BATCH;
  }

  private async send(entry: EntryRecord, requestId: string | undefined): Promise<void> {
    const product = await this.db.getRepository(Product).findOneByOrFail({ id: entry.productId });
    const dataUrl = `${this.config.PUBLIC_BASE_URL}/my-data/${this.links.sign(entry.id, new Date(this.clock.now().getTime() + MY_DATA_LINK_MS))}`;
    const { sent, untried, pacedForMs } = await this.sender.sendEach([entry], product, async (_, links) => myDataMail(translator(entry.locale), product.name, dataUrl, links, MY_DATA_LINK_MS), {
      kind: 'my-data',
      startBy: Date.now() + SEND_BOUND_MS,
      boundMs: SEND_BOUND_MS,
      requestId,
    });
    if (untried.length > 0) return this.putOff(entry.id, requestId, pacedForMs);
    if (sent.length === 0) this.logger.warn({ msg: `The my-data mail to ${entry.id} was not handed over; the person may ask again`, requestId });
  }

  /** A mail that never started (its receiving domain's pace, or no free connection) goes back to the outbox, due when the pace allows. */
  private async putOff(entryId: string, requestId: string | undefined, waitMs: number): Promise<void> {
    await this.db.query(
      `INSERT INTO outbox (queue, name, data, created_at, leased_until) VALUES ($1, 'my-data', $2, $3, now() + $4 * interval '1 millisecond')`,
      [QueueName.PersonalData, JSON.stringify({ entryId, httpRequestId: requestId }), this.clock.now(), waitMs],
    );
  }
}
