import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { APP_CONFIG, AppConfig, Clock, countOfDay, Metrics, preparedQuery, Product, refusedCountType, SignupRefusal } from '@app/shared';
import type { Counter } from 'prom-client';
import { DataSource } from 'typeorm';
import type { ProductScope } from '../common/scope';
import { FormTokens } from './form-tokens';

/** The name of the honeypot field, in the hosted form and in JSON: a field a form-filling bot fills in. */
export const HONEYPOT_FIELD = 'website';

/** A product's cheap bot signals (both off by default). */
export type SignalSettings = Pick<Product, 'signupHoneypot' | 'signupMinFillSeconds'>;

/** What a product's forms carry while its signals are on: the token of when the form was shown, and whether to draw the honeypot. */
export interface FormSignals {
  formToken?: string;
  honeypot?: true;
}


/** A form field left empty, as a person leaves the honeypot: absent, '' or null. */
const empty = (value: unknown): boolean => value === undefined || value === null || value === '';

/**
 * Why a sign-up is dropped, or null: the honeypot filled in, or a form token (`shownAt`: undefined when
 * the sign-up brought none, null when it is not one the service signed) younger than the minimum fill
 * time. A sign-up without a token is a product's own server or form: it is not timed (docs/api.md).
 */
export function refusalOf(settings: SignalSettings, honeypot: unknown, shownAt: Date | null | undefined, now: Date): SignupRefusal | null {
  if (settings.signupHoneypot && !empty(honeypot)) return 'honeypot';
  if (settings.signupMinFillSeconds <= 0 || shownAt === undefined) return null;
  return shownAt === null || now.getTime() - shownAt.getTime() < settings.signupMinFillSeconds * 1000 ? 'fill_time' : null;
}

/**
 * The hosted and script-tag forms' cheap bot signals: what the forms carry, and the sign-ups they drop,
 * each counted (waitlist_signups_refused_total, and the product's day for the overview) and nothing
 * else kept.
 */
@Injectable()
export class SignupSignals {
  private readonly tokens: FormTokens;
  private readonly refusals: Counter<'reason'>;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly clock: Clock,
    metrics: Metrics,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.tokens = new FormTokens(config.ENCRYPTION_KEY);
    this.refusals = metrics.signupsRefused();
  }

  /** Nothing while the product's signals are off, so that its forms are as they were. */
  forForm(scope: ProductScope, settings: SignalSettings): FormSignals {
    return {
      ...(settings.signupHoneypot ? { honeypot: true } : {}),
      ...(settings.signupMinFillSeconds > 0 ? { formToken: this.tokens.issue(scope, this.clock.now()) } : {}),
    };
  }

  /** Whether a sign-up brings something for `refused` to judge. */
  judges(fields: { honeypot?: unknown; formToken?: unknown }): boolean {
    return !empty(fields.honeypot) || fields.formToken !== undefined;
  }

  /**
   * Whether a sign-up is dropped, counted when it is. The product's settings are read only for a sign-up
   * that brings something to judge, so a sign-up without these fields costs no more than before.
   */
  async refused(scope: ProductScope, fields: { honeypot?: unknown; formToken?: unknown }): Promise<boolean> {
    if (!this.judges(fields)) return false;
    const [settings] = await preparedQuery<SignalSettings>(
      this.db,
      'SELECT signup_honeypot AS "signupHoneypot", signup_min_fill_seconds AS "signupMinFillSeconds" FROM products WHERE id = $1',
      [scope.productId],
    );
    const token = fields.formToken;
    const shownAt = token === undefined ? undefined : typeof token === 'string' ? this.tokens.shownAt(scope, token) : null;
    const now = this.clock.now();
    const reason = settings ? refusalOf(settings, fields.honeypot, shownAt, now) : null;
    if (!reason) return false;
    this.refusals.inc({ reason });
    await countOfDay(this.db, scope, refusedCountType(reason), now, 1);
    return true;
  }
}
