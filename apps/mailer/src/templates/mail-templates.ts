import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { CompiledTemplate, compileTemplate, groupCommits, MailKind, MailLinks, MailTemplate, preparedQuery, renderTemplate, TemplateRefused, TemplateSource, TemplateValues, Translator, withFoot } from '@app/shared';
import { DataSource } from 'typeorm';
import { MailContent } from '../mails/layout';

/** Templates compiled, by id and the time of their last change; at most this many kept. */
const CACHE_SIZE = 500;

/** Which template a mail would use: its product, kind and language. */
interface Ask {
  productId: string;
  kind: MailKind;
  locale: string | null;
}

/**
 * The mail a product wrote for a kind and a language, else its mail for every language, else the
 * service's default. A template is compiled once per change, not per mail: each mail asks only which
 * template applies and when it last changed, the mails being prepared at the same time in one statement
 * (a backlog's batch asked one each, a statement per mail). Whatever the template says, the service's foot (the
 * unsubscribe and my-data links, in the entry's language) follows its text and its HTML (the List-Unsubscribe headers are MailSender's).
 * A template that today's checks refuse (saved before a rule it breaks) is not used: the default mail goes.
 */
@Injectable()
export class MailTemplates {
  private readonly logger = new Logger(MailTemplates.name);
  private readonly compiled = new Map<string, CompiledTemplate | TemplateRefused>();

  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** The template each ask would use (its id and last change), the same asks of a batch asked once. */
  private readonly applying = groupCommits<Ask, { id: string; updated_at: Date } | null>(async (asks) => {
    const byKey = new Map(asks.map((ask) => [keyOf(ask), ask]));
    const [keys, distinct] = [[...byKey.keys()], [...byKey.values()]];
    const rows = await preparedQuery<{ i: string; id: string; updated_at: Date }>(
      this.db,
      `SELECT DISTINCT ON (ask.i) ask.i, t.id, t.updated_at
       FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS ask (product_id, kind, locale, i)
       JOIN mail_templates t ON t.product_id = ask.product_id AND t.kind = ask.kind AND (t.locale = ask.locale OR t.locale IS NULL)
       ORDER BY ask.i, t.locale NULLS LAST`,
      [distinct.map((ask) => ask.productId), distinct.map((ask) => ask.kind), distinct.map((ask) => ask.locale)],
    );
    const found = new Map(rows.map((row) => [keys[Number(row.i) - 1], { id: row.id, updated_at: row.updated_at }]));
    return asks.map((ask) => found.get(keyOf(ask)) ?? null);
  });

  async mail(
    productId: string,
    kind: MailKind,
    t: Translator,
    /** A product template's values, made only when it has one. */
    values: () => TemplateValues,
    links: MailLinks,
    defaultMail: () => MailContent,
  ): Promise<MailContent> {
    const template = await this.find(productId, kind, t.locale);
    if (!template || template instanceof TemplateRefused) return defaultMail();
    try {
      return withFoot(renderTemplate(template, values()), t, links);
    } catch (error) {
      // Checked on sample values at save; a real value may still pass a limit. The default mail goes instead.
      this.logger.warn({ msg: `The ${kind} template of ${productId} did not render, the default mail went instead: ${(error as Error).message}` });
      return defaultMail();
    }
  }

  private async find(productId: string, kind: MailKind, locale: string | undefined): Promise<CompiledTemplate | TemplateRefused | undefined> {
    const found = await this.applying({ productId, kind, locale: locale ?? null });
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

const keyOf = ({ productId, kind, locale }: Ask) => `${productId} ${kind} ${locale ?? ''}`;

function compiledOrRefused(kind: MailKind, source: TemplateSource): CompiledTemplate | TemplateRefused {
  try {
    return compileTemplate(kind, source);
  } catch (error) {
    if (error instanceof TemplateRefused) return error;
    throw error;
  }
}
