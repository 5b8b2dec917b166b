import { Processor } from '@nestjs/bullmq';
import { Inject, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  APP_CONFIG,
  AppConfig,
  Clock,
  codeTimes,
  groupCommits,
  hashToken,
  INVITATION_TIMING,
  invitationLink,
  invitationValues,
  InviteCode,
  jobRunner,
  JobOf,
  keyedQuery,
  markHandedOver,
  newToken,
  preparedQuery,
  Product,
  QueueName,
  QueueProcessor,
  recordHandovers,
  REMINDER_CODES,
  SecretBox,
  translator,
} from '@app/shared';
import { UnrecoverableError } from 'bullmq';
import { DataSource, In } from 'typeorm';
import { MailEntry, MailSender } from './mail-sender';
import { invitationMail } from './mails/invitation';
import { MailTemplates } from './templates/mail-templates';
import { MailLinks } from './mails/layout';

/** What a job's mails need of an entry its request holds. */
type HeldEntry = MailEntry & { productId: string };

/**
 * A job's entries that its request still holds and that can be invited: the four columns its mails
 * need, without the ORM, which converted every column of the entity (its dates parsed) at some 40 µs a
 * mail in the invite-next benchmark.
 */
const HELD_ENTRIES = `SELECT id, email, locale, product_id AS "productId" FROM entries
  WHERE id = ANY($1::text[]) AND invite_request = $2 AND invite_held_until > $3 AND state = $4`;

/** One attempt per job and no re-run after a stall: the API decides what to do about a failure. */
@Processor(QueueName.Invitations, { concurrency: 20, maxStalledCount: 0 })
export class InvitationProcessor extends QueueProcessor {
  protected readonly jobs = jobRunner(QueueName.Invitations, { invitations: (job) => this.invite(job) });
  private readonly logger = new Logger(InvitationProcessor.name);
  /** Each handover marked as soon as the server took the mail, those of the same moment in one statement. */
  private readonly mark = groupCommits<Buffer, void>(async (hashes) => {
    await markHandedOver(this.db, hashes);
    return hashes.map(() => undefined);
  });

  private readonly reminderCodes: SecretBox;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly sender: MailSender,
    private readonly clock: Clock,
    private readonly templates: MailTemplates,
  ) {
    super();
    this.reminderCodes = new SecretBox(config.ENCRYPTION_KEY, REMINDER_CODES);
  }

  /**
   * The invitations of one request the API waits for (invite, reinvite, or a chunk of invite-next).
   * Nothing goes out for an entry the request no longer holds, and no mail starts after the job's
   * deadline: those left over go back to the API, which sends them in a job of their own, so a slow
   * server delays mails but the API never gives up on one still being handed over. Each code is
   * written (not yet recorded) before its mail's handover, marked handed over right after it, and the
   * job's handovers are recorded together at its end by the mailer itself, so the outcome stands
   * whatever happened to the API meanwhile; a mailer that dies before then leaves the marks, which the
   * API records before it answers, and loses only the mark of the mails in flight, whose codes still
   * work when first used (recordHandover). Each mail succeeds or fails on its own; the job fails when
   * none went out.
   */
  private async invite(job: JobOf<QueueName.Invitations, 'invitations'>): Promise<void> {
    const { entryIds, requestId, deadline, again, httpRequestId } = job.data;
    const now = this.clock.now();
    const entries = await keyedQuery<HeldEntry>(this.db, HELD_ENTRIES, [entryIds, requestId, now, again ? 'invited' : 'confirmed']);
    if (entries.length === 0) throw new UnrecoverableError('The request no longer holds its entries, or they cannot be invited');
    if (Date.now() >= deadline) throw new UnrecoverableError('The deadline passed before the mails could go out');
    // A request's entries are of one product.
    const product = await this.db.getRepository(Product).findOneByOrFail({ id: entries[0].productId });
    const codes = new Map(entries.map((entry) => [entry.id, newToken()]));
    const hashes = new Map([...codes].map(([id, code]) => [id, hashToken(code)]));
    const hashOf = (entry: HeldEntry) => hashes.get(entry.id)!;
    // The product's claim window, if any, shortens the code's life and brings a reminder (domain/claim-window.ts).
    const { expiresAt, claimEndsAt, remindAt } = codeTimes({ days: product.claimWindowDays, reminderHours: product.claimReminderHours }, now, this.config.INVITE_CODE_TTL);
    // Only a reminder to come keeps the code, sealed, until the reminder takes it (docs/decisions/claim-window.md).
    const sealedOf = (entry: HeldEntry) => (remindAt ? this.reminderCodes.seal(codes.get(entry.id)!) : null);
    const mail = (entry: HeldEntry, links: MailLinks) => {
      const t = translator(entry.locale);
      const link = invitationLink(product.inviteUrl, this.config.PUBLIC_BASE_URL, codes.get(entry.id)!);
      const validMs = expiresAt.getTime() - now.getTime();
      const values = () => invitationValues(t, product.name, link, links, now, expiresAt);
      return this.templates.mail(product.id, 'invitation', t, values, links, () => invitationMail(t, product.name, link, links, validMs));
    };
    const { sent, untried } = await this.sender.sendEach(entries, product, mail, {
      // The codes, written before their mails can leave.
      store: (manager, present) =>
        preparedQuery(
          manager.queryRunner!,
          `INSERT INTO invite_codes (hash, entry_id, sealed_code, request_id, recorded, expires_at, created_at, claim_ends_at, remind_at)
           SELECT code.hash, code.entry_id, code.sealed, $4::text, false, $5::timestamptz, $6::timestamptz, $7::timestamptz, $8::timestamptz
           FROM unnest($1::bytea[], $2::text[], $3::bytea[]) AS code (hash, entry_id, sealed)`,
          [present.map(hashOf), present.map((entry) => entry.id), present.map(sealedOf), requestId, expiresAt, now, claimEndsAt, remindAt],
        ),
      // A mark the database refused is no loss while this process lives: sendEach still counts the mail as sent, and it is recorded below.
      handedOver: (entry) => this.mark(hashOf(entry)).catch(() => undefined),
      startBy: deadline,
      boundMs: INVITATION_TIMING.sendBoundMs,
      requestId: httpRequestId,
    });
    // In line order, as entry.invited goes out.
    const place = new Map(entryIds.map((id, i) => [id, i]));
    const handedOver = [...sent].sort((a, b) => place.get(a.id)! - place.get(b.id)!);
    const handovers = handedOver.map((entry) => ({ hash: hashOf(entry), heldBy: requestId, again }));
    const works = handovers.length ? await this.db.transaction((manager) => recordHandovers(manager, handovers, this.clock.now())).catch(() => undefined) : [];
    handedOver.forEach((entry, i) => {
      if (works?.[i]) return;
      // A handover that outlasted every bound (the API answered mail_failed), a redeem meanwhile, or the database away.
      const why = works ? 'after its request gave up' : 'but could not be recorded';
      this.logger.error({ msg: `The invitation of ${entry.id} was handed over ${why}; its code is recorded if it is used`, requestId: httpRequestId });
    });
    // Known to nobody; without a code of this request the API knows them for mails that never started.
    if (untried.length > 0) await this.db.getRepository(InviteCode).delete({ hash: In(untried.map(hashOf)) });
    if (sent.length === 0 && untried.length === 0) throw new UnrecoverableError('No mail of the job was handed over');
  }
}
