import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { CompiledTemplate, compileTemplate, MailKind, MailLinks, MailTemplate, preparedQuery, renderTemplate, TemplateRefused, TemplateSource, TemplateValues, Translator, withFoot } from '@app/shared';
import { DataSource } from 'typeorm';
import { MailContent } from '../mails/layout';

/** Templates compiled, by id and the time of their last change; at most this many kept. */
const CACHE_SIZE = 500;

/**
 * The mail a product wrote for a kind and a language, else its mail for every language, else the
 * service's default. A template is compiled once per change, not per mail: each mail asks only which
 * template applies and when it last changed. Whatever the template says, the service's foot (the
 * unsubscribe and my-data links, in the entry's language) follows its text and its HTML (the List-Unsubscribe headers are MailSender's).
 * A template that today's checks refuse (saved before a rule it breaks) is not used: the default mail goes.
 */
@Injectable()
export class MailTemplates {
  private readonly logger = new Logger(MailTemplates.name);
  private readonly compiled = new Map<string, CompiledTemplate | TemplateRefused>();

  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async mail(
    productId: string,
    kind: MailKind,
    t: Translator,
    values: TemplateValues,
    links: MailLinks,
    defaultMail: () => MailContent,
  ): Promise<MailContent> {
    const template = await this.find(productId, kind, t.locale);
    if (!template || template instanceof TemplateRefused) return defaultMail();
    try {
      return withFoot(renderTemplate(template, values), t, links);
    } catch (error) {
      // Checked on sample values at save; a real value may still pass a limit. The default mail goes instead.
      this.logger.warn({ msg: `The ${kind} template of ${productId} did not render, the default mail went instead: ${(error as Error).message}` });
      return defaultMail();
    }
  }

  private async find(productId: string, kind: MailKind, locale: string | undefined): Promise<CompiledTemplate | TemplateRefused | undefined> {
    const [found] = await preparedQuery<{ id: string; updated_at: Date }>(
      this.db,
      `SELECT id, updated_at FROM mail_templates WHERE product_id = $1 AND kind = $2 AND (locale = $3 OR locale IS NULL)
       ORDER BY locale NULLS LAST LIMIT 1`,
      [productId, kind, locale ?? null],
    );
    if (!found) return undefined;
    const key = `${found.id}@${found.updated_at.getTime()}`;
    const cached = this.compiled.get(key);
    if (cached) return cached;
    const row = await this.db.getRepository(MailTemplate).findOneBy({ id: found.id });
    if (!row) return undefined;
    const template = compiledOrRefused(kind, row);
    // Saved before a rule it breaks (one that keeps the foot visible): its mails are the default ones, said once per change.
    if (template instanceof TemplateRefused) this.logger.warn({ msg: `The ${kind} template of ${productId} is refused, its mails are the default ones: ${template.message}` });
    if (this.compiled.size >= CACHE_SIZE) this.compiled.delete(this.compiled.keys().next().value!);
    this.compiled.set(key, template);
    return template;
  }
}

function compiledOrRefused(kind: MailKind, source: TemplateSource): CompiledTemplate | TemplateRefused {
  try {
    return compileTemplate(kind, source);
  } catch (error) {
    if (error instanceof TemplateRefused) return error;
    throw error;
  }
}
