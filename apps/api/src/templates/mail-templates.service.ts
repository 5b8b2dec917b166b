import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  Clock,
  compileTemplate,
  Locale,
  MailKind,
  MailTemplate,
  newId,
  renderTemplate,
  sampleValues,
  TemplateRefused,
  TemplateSource,
  TemplateValues,
  translator,
  withFoot,
} from '@app/shared';
import { DataSource, IsNull } from 'typeorm';
import { ApiError } from '../common/api-error';

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

/**
 * A product's mail templates, as the dashboard edits them: each checked before it is kept (the same
 * engine and checks as the mailer's), previewed and test-sent on sample values.
 */
/** The my-data link of a preview's foot (every mail links the product's my-data page). */
const SAMPLE_MY_DATA = 'https://waitlist.example/w/pk_live_sample/my-data';

@Injectable()
export class MailTemplatesService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly clock: Clock,
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

  /** The mail a template makes of sample values, with the foot every mail gets in `locale`. */
  preview(kind: MailKind, source: TemplateSource, productName: string, locale: Locale): TemplateSource {
    const values: TemplateValues = { ...sampleValues(kind), product_name: productName };
    return withFoot(renderTemplate(this.check(kind, source), values), translator(locale), { unsubscribe: values.unsubscribe_url, myData: SAMPLE_MY_DATA });
  }

  private check(kind: MailKind, source: TemplateSource) {
    try {
      return compileTemplate(kind, source);
    } catch (error) {
      if (error instanceof TemplateRefused) throw new TemplateProblem(error);
      throw error;
    }
  }
}
