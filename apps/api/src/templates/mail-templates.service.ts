import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  APP_CONFIG,
  AppConfig,
  Clock,
  codeTimes,
  compileTemplate,
  confirmationLink,
  confirmationValues,
  invitationLink,
  invitationValues,
  Locale,
  MailKind,
  MailLinks,
  mailLinks,
  MailTemplate,
  Mode,
  newId,
  Product,
  reminderValues,
  renderTemplate,
  TemplateRefused,
  TemplateSource,
  TemplateValues,
  Translator,
  translator,
  withFoot,
} from '@app/shared';
import { DataSource, IsNull } from 'typeorm';
import { ApiError } from '../common/api-error';
import { KeysService } from '../keys/keys.service';

/** A template's place: its product, its kind and its language (null: every language without its own). */
export interface TemplateSlot {
  productId: string;
  kind: MailKind;
  locale: Locale | null;
}

/** A refusal with where it is: the part (param), the line and the column. */
export class TemplateProblem extends ApiError {
  constructor(readonly refused: TemplateRefused) {
    super('invalid_request', refused.message, { param: refused.part });
  }
}

/** The tokens of a preview's links: the real links' shape under PUBLIC_BASE_URL, with nothing that works. */
const SAMPLE_TOKEN = { confirm: 'sample-confirmation-token', invite: 'sample-invitation-code', unsubscribe: 'sample-unsubscribe-token' };
/** When a product sends no reminder, its preview's reminder comes this long before the link's end. */
const PREVIEW_REMINDER_HOURS = 24;
const HOUR_MS = 3_600_000;

/**
 * A product's mail templates, as the dashboard edits them: each checked before it is kept (the same
 * engine and checks as the mailer's), previewed and test-sent with the values a real mail of the kind,
 * language and product would carry (links made of sample tokens).
 */
@Injectable()
export class MailTemplatesService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly keys: KeysService,
  ) {}

  list(productId: string): Promise<MailTemplate[]> {
    return this.db.getRepository(MailTemplate).find({ where: { productId }, order: { kind: 'ASC', locale: 'ASC' } });
  }

  find({ productId, kind, locale }: TemplateSlot): Promise<MailTemplate | null> {
    return this.db.getRepository(MailTemplate).findOneBy({ productId, kind, locale: locale ?? IsNull() });
  }

  /** Keeps the template in its slot, replacing the one there; refused (TemplateProblem) unless it checks. */
  async save(slot: TemplateSlot, source: TemplateSource): Promise<void> {
    this.check(slot.kind, source);
    await this.db.query(
      `INSERT INTO mail_templates (id, product_id, kind, locale, subject, text, html, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (product_id, kind, locale) DO UPDATE SET subject = EXCLUDED.subject, text = EXCLUDED.text, html = EXCLUDED.html, updated_at = EXCLUDED.updated_at`,
      [newId('tpl'), slot.productId, slot.kind, slot.locale, source.subject, source.text, source.html, this.clock.now()],
    );
  }

  /** Back to the default: the slot's template is gone, and its mails are the service's own again (or the product's for every language). */
  async reset({ productId, kind, locale }: TemplateSlot): Promise<boolean> {
    const { affected } = await this.db.getRepository(MailTemplate).delete({ productId, kind, locale: locale ?? IsNull() });
    return (affected ?? 0) > 0;
  }

  /** The mail a template makes in `locale` as the product's mail of the kind would read now, with the foot every mail gets. */
  async preview(kind: MailKind, source: TemplateSource, product: Product, mode: Mode, locale: Locale): Promise<TemplateSource> {
    const t = translator(locale);
    const links = mailLinks(this.config.PUBLIC_BASE_URL, SAMPLE_TOKEN.unsubscribe, await this.keys.publishableInUse(product.id, mode));
    const values = this.valuesNow(kind, t, product, links);
    const template = this.check(kind, source);
    return refusing(() => withFoot(renderTemplate(template, values), t, links));
  }

  private check(kind: MailKind, source: TemplateSource) {
    return refusing(() => compileTemplate(kind, source));
  }

  /** A real mail's values (the mailer's functions) as if it were sent now; a reminder as when it is due. */
  private valuesNow(kind: MailKind, t: Translator, product: Product, links: MailLinks): TemplateValues {
    const base = this.config.PUBLIC_BASE_URL;
    if (kind === 'confirmation') return confirmationValues(t, product.name, confirmationLink(base, SAMPLE_TOKEN.confirm), links, this.config.PENDING_ENTRY_TTL);
    const now = this.clock.now();
    const { expiresAt, remindAt } = codeTimes({ days: product.claimWindowDays, reminderHours: product.claimReminderHours }, now, this.config.INVITE_CODE_TTL);
    const link = invitationLink(product.inviteUrl, base, SAMPLE_TOKEN.invite);
    if (kind === 'invitation') return invitationValues(t, product.name, link, links, now, expiresAt);
    return reminderValues(t, product.name, link, links, remindAt ?? new Date(expiresAt.getTime() - PREVIEW_REMINDER_HOURS * HOUR_MS), expiresAt);
  }
}

/** What `work` makes, or its refusal as the dashboard shows it (TemplateProblem). */
function refusing<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof TemplateRefused) throw new TemplateProblem(error);
    throw error;
  }
}
