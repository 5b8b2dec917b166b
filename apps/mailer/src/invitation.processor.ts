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
  recordHandover,
} from '@app/shared';
import { UnrecoverableError } from 'bullmq';
import { DataSource } from 'typeorm';
import { MailSender, storeForEntry } from './mail-sender';
import { invitationMail } from './mails/invitation';

/** One attempt per job and no re-run after a stall: the API decides what to do about a failure. */
@Processor(QueueName.Invitations, { concurrency: 20, maxStalledCount: 0 })
export class InvitationProcessor extends QueueProcessor {
  protected readonly jobs = jobRunner(QueueName.Invitations, { invitation: (job) => this.invite(job) });
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
   * An invitation the API waits for (invite, reinvite or invite-next). Nothing goes out after the
   * job's deadline or for an entry the request no longer holds. The code is written (not yet
   * recorded) before the handover and recorded right after it by the mailer itself, so the outcome
   * stands whatever happened to the API meanwhile, and a code whose mail left just before the mailer
   * died still works when it is first used (recordHandover).
   */
  private async invite(job: JobOf<QueueName.Invitations, 'invitation'>): Promise<void> {
    const { entryId, requestId, deadline, again } = job.data;
    const entry = await this.db.getRepository(EntryRecord).findOneBy({ id: entryId });
    const now = this.clock.now();
    if (!entry || entry.inviteRequest !== requestId || !entry.inviteHeldUntil || entry.inviteHeldUntil <= now) {
      throw new UnrecoverableError('The request no longer holds the entry');
    }
    if (entry.state !== (again ? 'invited' : 'confirmed')) throw new UnrecoverableError(`The entry is ${entry.state}`);
    const product = await this.db.getRepository(Product).findOneByOrFail({ id: entry.productId });
    const code = newToken();
    const hash = hashToken(code);
    const inviteUrl = new URL(product.inviteUrl ?? `${this.config.PUBLIC_BASE_URL}/`);
    inviteUrl.searchParams.set('invite', code);
    if (Date.now() >= deadline) throw new UnrecoverableError('The deadline passed before the mail could go out');
    if (!(await this.writeCode(entry.id, requestId, hash))) throw new UnrecoverableError('The entry was deleted');
    const sent = await this.sender.send(entry, product, (unsubscribeUrl) => invitationMail(product.name, inviteUrl.toString(), unsubscribeUrl, describeDuration(this.config.INVITE_CODE_TTL)), {
      signal: AbortSignal.timeout(INVITATION_TIMING.sendBoundMs),
    });
    if (!sent) throw new UnrecoverableError('The entry was deleted');
    const recorded = await this.db.transaction((manager) => recordHandover(manager, hash, this.clock.now(), { heldBy: requestId }));
    if (!recorded) {
      // A handover that outlasted every bound (the API answered mail_failed), or a redeem meanwhile.
      this.logger.error(`The invitation of ${entry.id} was handed over after its request gave up; its code is recorded if it is used`);
    }
  }

  /** The code, written before its mail can leave; false when the entry is gone. */
  private async writeCode(entryId: string, requestId: string, hash: Buffer): Promise<boolean> {
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + this.config.INVITE_CODE_TTL);
    return storeForEntry(() => this.db.getRepository(InviteCode).insert({ hash, entryId, requestId, recorded: false, expiresAt, createdAt: now }));
  }
}
