import { Processor } from '@nestjs/bullmq';
import { Inject, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  APP_CONFIG,
  AppConfig,
  Clock,
  describeDuration,
  EntryRecord,
  hashToken,
  INVITATION_TIMING,
  InviteCode,
  jobRunner,
  JobOf,
  newToken,
  Product,
  QueueName,
  QueueProcessor,
  recordHandovers,
} from '@app/shared';
import { UnrecoverableError } from 'bullmq';
import { DataSource, In, MoreThan } from 'typeorm';
import { MailSender } from './mail-sender';
import { invitationMail } from './mails/invitation';

/** One attempt per job and no re-run after a stall: the API decides what to do about a failure. */
@Processor(QueueName.Invitations, { concurrency: 20, maxStalledCount: 0 })
export class InvitationProcessor extends QueueProcessor {
  protected readonly jobs = jobRunner(QueueName.Invitations, { invitations: (job) => this.invite(job) });
  private readonly logger = new Logger(InvitationProcessor.name);

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly sender: MailSender,
    private readonly clock: Clock,
  ) {
    super();
  }

  /**
   * The invitations of one request the API waits for (invite, reinvite, or a chunk of invite-next).
   * Nothing goes out after the job's deadline or for an entry the request no longer holds. Each code
   * is written (not yet recorded) before its mail's handover and recorded after it by the mailer
   * itself, so the outcome stands whatever happened to the API meanwhile, and a code whose mail left
   * just before the mailer died still works when it is first used (recordHandover). Each mail
   * succeeds or fails on its own; the job fails when none went out.
   */
  private async invite(job: JobOf<QueueName.Invitations, 'invitations'>): Promise<void> {
    const { entryIds, requestId, deadline, again, httpRequestId } = job.data;
    const now = this.clock.now();
    const entries = await this.db.getRepository(EntryRecord).findBy({
      id: In(entryIds),
      inviteRequest: requestId,
      inviteHeldUntil: MoreThan(now),
      state: again ? 'invited' : 'confirmed',
    });
    if (entries.length === 0) throw new UnrecoverableError('The request no longer holds its entries, or they cannot be invited');
    // A request's entries are of one product.
    const product = await this.db.getRepository(Product).findOneByOrFail({ id: entries[0].productId });
    const codes = new Map(entries.map((entry) => [entry.id, newToken()]));
    const inviteUrl = (code: string) => {
      const url = new URL(product.inviteUrl ?? `${this.config.PUBLIC_BASE_URL}/`);
      url.searchParams.set('invite', code);
      return url.toString();
    };
    const validFor = describeDuration(this.config.INVITE_CODE_TTL);
    const expiresAt = new Date(now.getTime() + this.config.INVITE_CODE_TTL);
    if (Date.now() >= deadline) throw new UnrecoverableError('The deadline passed before the mails could go out');
    const sent = await this.sender.sendEach(entries, product, (entry, unsubscribeUrl) => invitationMail(product.name, inviteUrl(codes.get(entry.id)!), unsubscribeUrl, validFor), {
      // The codes, written before their mails can leave.
      store: (manager, present) =>
        manager.getRepository(InviteCode).insert(present.map((entry) => ({ hash: hashToken(codes.get(entry.id)!), entryId: entry.id, requestId, recorded: false, expiresAt, createdAt: now }))),
      signal: AbortSignal.timeout(INVITATION_TIMING.sendBoundMs),
      requestId: httpRequestId,
    });
    if (sent.length === 0) throw new UnrecoverableError('No mail of the job was handed over');
    const hashes = sent.map((entry) => hashToken(codes.get(entry.id)!));
    const recorded = await this.db.transaction((manager) => recordHandovers(manager, hashes, this.clock.now(), { heldBy: requestId }));
    for (const [index, entry] of sent.entries()) {
      // A handover that outlasted every bound (the API answered mail_failed), or a redeem meanwhile.
      if (!recorded[index]) {
        this.logger.error({ msg: `The invitation of ${entry.id} was handed over after its request gave up; its code is recorded if it is used`, requestId: httpRequestId });
      }
    }
  }
}
