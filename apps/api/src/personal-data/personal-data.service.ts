import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { APP_CONFIG, AppConfig, canonicalEmail, Clock, EntryRecord, JobData, Locale, MyDataLinks, normalizeEmail, Product, QueueName } from '@app/shared';
import { DataSource } from 'typeorm';
import { ApiError } from '../common/api-error';
import { RateLimits } from '../common/rate-limits';
import type { KeyScope } from '../common/scope';
import { EntriesService } from '../entries/entries.service';
import { KeysService } from '../keys/keys.service';
import { personalData } from './export';
import { recordPrivacyRequest } from './privacy-trail';

type MyDataJob = JobData<QueueName.PersonalData, 'my-data'>;

/** An entry behind a my-data link, with its product. */
export interface LinkedEntry {
  entry: EntryRecord;
  product: Product;
}

/** A person's own data: the mail with a signed link, what the link shows and downloads, and the deletion it offers. */
@Injectable()
export class PersonalDataService {
  private readonly logger = new Logger(PersonalDataService.name);
  private readonly links: MyDataLinks;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly keys: KeysService,
    private readonly entries: EntriesService,
    private readonly limits: RateLimits,
    private readonly clock: Clock,
  ) {
    this.links = new MyDataLinks(config.ENCRYPTION_KEY);
  }

  /** The product of a publishable key in use; 404 for any other key (a hosted page). */
  async productOf(key: string): Promise<{ scope: KeyScope; product: Product }> {
    const scope = await this.keys.authenticate(key, 'publishable');
    const product = scope && (await this.db.getRepository(Product).findOneBy({ id: scope.productId }));
    if (!scope || !product) throw new ApiError('not_found', 'This page does not exist.');
    return { scope, product };
  }

  /**
   * Queues the my-data mail of the address, if the product and mode has it. The same answer either way,
   * so the form tells nobody who is on the list: one statement whether it finds the entry or not. Rate
   * limited as sign-ups are: per client IP, and per mailbox with the allowance of confirmation mails
   * (given back when no mail goes out), so that nobody floods an inbox through the form.
   */
  async request(key: string, input: unknown, ip: string, requestId: string): Promise<void> {
    const { scope } = await this.productOf(key);
    const email = normalizeEmail(input);
    if (!email) throw new ApiError('invalid_email', 'Enter a valid email address.', { param: 'email' });
    await this.limits.signupFromIp(ip);
    const mailbox = canonicalEmail(email);
    if (!(await this.limits.confirmationMailFor(scope, mailbox))) return;
    // The mail and its line in the privacy trail in one statement, so in one transaction.
    const queued: unknown[] = await this.db.query(
      `WITH found AS (SELECT id FROM entries WHERE product_id = $2 AND mode = $3 AND email = $4),
       logged AS (INSERT INTO privacy_requests (product_id, mode, kind, entry_id, at) SELECT $2, $3, 'request', id, $6 FROM found)
       INSERT INTO outbox (queue, name, data, created_at)
       SELECT $1, 'my-data', jsonb_build_object('entryId', id) || $5::jsonb, $6 FROM found
       RETURNING 1`,
      [QueueName.PersonalData, scope.productId, scope.mode, email, { httpRequestId: requestId } satisfies Omit<MyDataJob, 'entryId'>, this.clock.now()],
    );
    // Given back without waiting, so that an unknown address answers no later than a known one.
    if (queued.length === 0) void this.limits.returnConfirmationMail(scope, mailbox).catch(() => undefined);
  }

  /** The entry behind a link still good, with its product; 404 for a link expired, changed, or of an entry gone. */
  async entryOf(token: string): Promise<LinkedEntry> {
    const id = this.links.open(token, this.clock.now());
    const entry = id && (await this.db.getRepository(EntryRecord).findOneBy({ id }));
    if (!entry) throw new ApiError('not_found', 'This link is no longer valid. Ask for a new one on the page you came from.');
    return { entry, product: await this.db.getRepository(Product).findOneByOrFail({ id: entry.productId }) };
  }

  /** Everything kept about the link's entry (export.ts), read in one snapshot; a download goes in the privacy trail in it. */
  async export(token: string, download = false): Promise<{ linked: LinkedEntry; data: Record<string, unknown> }> {
    const linked = await this.entryOf(token);
    const { entry } = linked;
    const data = await this.db.transaction('REPEATABLE READ', async (manager) => {
      const now = this.clock.now();
      if (download) await recordPrivacyRequest(manager, entry, 'download', entry.id, now);
      return personalData(manager, entry, linked.product, now);
    });
    return { linked, data };
  }

  /**
   * Deletes the link's entry as the API's DELETE does (entry.deleted, the suppression list, every trace
   * erased), and logs it by id alone. The product's name and the entry's language, for the page that says it is done.
   */
  async delete(token: string): Promise<{ productName: string; locale: Locale }> {
    const { entry, product } = await this.entryOf(token);
    await this.entries.delete(entry, entry.id, (manager, now) => recordPrivacyRequest(manager, entry, 'deletion', entry.id, now));
    this.logger.log(`The entry ${entry.id} was deleted at the person's request (my-data page)`);
    return { productName: product.name, locale: entry.locale };
  }
}
