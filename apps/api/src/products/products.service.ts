import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { claimWindowProblem, Clock, LOCALES, newId, Product, ProtectionLevel } from '@app/shared';
import { DataSource, In } from 'typeorm';
import { z } from 'zod';
import { CHALLENGE_SETTINGS_FORM } from '../challenges/challenges.dto';
import { CLAIM_WINDOW_SETTINGS } from '../claim-window/claim-window.dto';
import { ApiError } from '../common/api-error';
import { KeyPair, KeysService } from '../keys/keys.service';
import { LEADERBOARD_SETTINGS_FORM } from '../leaderboard/leaderboard.dto';
import { LineService } from '../line/line.service';
import { MILESTONES_FORM } from '../referrals/milestones';
import { changedRules } from '../referrals/protection';
import { REFERRAL_SETTINGS } from '../referrals/referrals.dto';
import { SIGNUP_SIGNALS_SETTINGS } from '../signups/signups.dto';
import { QUESTIONS_FORM } from './questions-form';

export interface NewProduct {
  name: string;
  inviteUrl?: string | null;
  signupUrl?: string | null;
  referralPlaces?: number;
  /** off unless given: the dashboard's new-product form and the demo product propose standard. */
  referralProtection?: ProtectionLevel;
}

/** One line of text a person reads (a product or sender name), for the dashboard's forms and the CLI's flags alike. */
export const textLine = (label: string) =>
  z
    .string()
    .trim()
    .min(1, `${label} cannot be empty`)
    .max(100, `${label} is at most 100 characters`)
    .refine((value) => !/\p{Cc}/u.test(value), `${label} cannot hold control characters`);
const optional = <T extends z.ZodType>(schema: T) => z.preprocess((value) => (value === '' ? null : value), schema.nullable());
const pageUrl = (label: string) =>
  z
    .string()
    .trim()
    .max(2000, `${label} is at most 2,000 characters`)
    // The URL parser drops tabs and line breaks that would be stored as typed; a NUL cannot be stored at all.
    .refine((value) => !/\p{Cc}/u.test(value), `${label} cannot hold control characters`)
    .refine((value) => /^https?:\/\//i.test(value) && URL.canParse(value), `${label} must be an http(s) URL`);

/** What the team may change about its product; the sender name and URLs are cleared with ''. */
export const PRODUCT_SETTINGS = z.object({
  name: textLine('The name'),
  senderName: optional(textLine('The sender name')),
  inviteUrl: optional(pageUrl('The invite URL')),
  signupUrl: optional(pageUrl('The sign-up page URL')),
  referralPlaces: z
    .string()
    .trim()
    .regex(/^\d{1,4}$/, 'Referral places must be a whole number from 0 to 9999')
    .transform(Number),
  ...REFERRAL_SETTINGS.shape,
  ...LEADERBOARD_SETTINGS_FORM.shape,
  milestones: MILESTONES_FORM,
  ...CLAIM_WINDOW_SETTINGS.shape,
  /** At most this many entries of a mode invited and not redeemed; '' (the default): no cap. */
  capacity: optional(
    z
      .string()
      .trim()
      .regex(/^[1-9]\d{0,6}$/, 'The capacity must be a whole number from 1 to 9,999,999, or empty for none')
      .transform(Number),
  ),
  /** Invitation mails per UTC hour and day that releases keep to; '' (the default): no quota. */
  mailQuotaHourly: optional(z.string().trim().regex(/^[1-9]\d{0,6}$/, 'The hourly mail quota must be a whole number from 1 to 9,999,999, or empty for none').transform(Number)),
  mailQuotaDaily: optional(z.string().trim().regex(/^[1-9]\d{0,7}$/, 'The daily mail quota must be a whole number from 1 to 99,999,999, or empty for none').transform(Number)),
  /** The language of a sign-up that names none; a form or call that leaves it out changes nothing. */
  defaultLocale: z.preprocess(
    (value) => (value === '' ? undefined : value),
    z.enum(LOCALES, { message: `The default language must be one of ${LOCALES.join(', ')}` }).optional(),
  ),
  /** What the sign-up asks, one question a line (questions-form.ts). */
  questions: QUESTIONS_FORM,
  ...SIGNUP_SIGNALS_SETTINGS.shape,
  /** The sign-up challenge: off, invisible or required, and its difficulty. */
  ...CHALLENGE_SETTINGS_FORM.shape,
});
export type ProductSettings = z.output<typeof PRODUCT_SETTINGS>;

export interface CreatedProduct {
  id: string;
  keys: { live: KeyPair; test: KeyPair };
}

@Injectable()
export class ProductsService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly keys: KeysService,
    private readonly line: LineService,
    private readonly clock: Clock,
  ) {}

  /** A product with a live and a test key pair; the keys are shown once. */
  async create(input: NewProduct): Promise<CreatedProduct> {
    return this.db.transaction(async (manager) => {
      const id = newId('prod');
      await manager.insert(Product, {
        id,
        name: input.name,
        inviteUrl: input.inviteUrl ?? null,
        signupUrl: input.signupUrl ?? null,
        referralPlaces: input.referralPlaces ?? 1,
        referralProtection: input.referralProtection ?? 'off',
        createdAt: this.clock.now(),
      });
      const live = await this.keys.createPair(id, 'live', manager);
      const test = await this.keys.createPair(id, 'test', manager);
      return { id, keys: { live, test } };
    });
  }

  /**
   * Changes the settings given (the dashboard gives them all, `products update` those named); a new
   * number of referral places moves everyone waiting to their new place. Thresholds given as null go
   * back to the protection level's default.
   */
  async update(id: string, changes: Partial<ProductSettings>): Promise<void> {
    const { velocityLimit, velocityWindowHours, tooFastSeconds, waitingDays, waitingFor, blockedDomains, allowedDomains, burstPerHour, ...columns } = changes;
    const rules = { velocityLimit, velocityWindowHours, tooFastSeconds, waitingDays, waitingFor, blockedDomains, allowedDomains, burstPerHour };
    await this.db.transaction(async (manager) => {
      // FOR NO KEY UPDATE, what the UPDATE takes anyway: a confirmation that holds its line's counter writes rows
      // that refer to the product (FOR KEY SHARE) and must not wait for this, which waits for the counters next.
      const product = await manager.getRepository(Product).findOne({ where: { id }, lock: { mode: 'for_no_key_update' } });
      if (!product) return;
      const { claimWindowDays: days = product.claimWindowDays, claimReminderHours: reminderHours = product.claimReminderHours } = columns;
      const problem = claimWindowProblem({ days, reminderHours });
      if (problem) throw new ApiError('invalid_request', `${problem}.`, { param: 'claimReminderHours' });
      await manager.update(Product, id, { ...columns, referralRules: changedRules(product.referralRules, rules) });
      if (columns.referralPlaces !== undefined) await this.line.rekey(manager, id, { from: product.referralPlaces, to: columns.referralPlaces });
    });
  }

  async find(id: string): Promise<Product | null> {
    return this.db.getRepository(Product).findOneBy({ id });
  }

  /** The products of these ids (a dashboard user's teams), by name. */
  async findMany(ids: string[]): Promise<Product[]> {
    return this.db.getRepository(Product).find({ where: { id: In(ids) }, order: { name: 'ASC' } });
  }
}
