import { Body, Controller, Get, Param, Post, Res, UseFilters, UseGuards } from '@nestjs/common';
import { isLocale, isMailKind, MailKind, STARTERS, TEMPLATE_MAX_LENGTH, TemplateSource } from '@app/shared';
import type { FastifyReply } from 'fastify';
import { ApiError } from '../../common/api-error';
import { BodyLimit } from '../../common/body-limit';
import { MailTemplatesService, TemplateProblem, TemplateSlot } from '../../templates/mail-templates.service';
import { TestMails } from '../../templates/test-mails';
import { DashboardGuard, LoginRedirect } from '../auth/dashboard.guard';
import { storableForm, text } from '../shared/forms';
import { InProduct, ProductPage } from '../shared/product-page';
import { Replies } from '../shared/replies';
import { LocaleSlot, resetTemplatePage, savedWords, templateEditor, templatesPage } from './pages';

/** The kind and language of a URL; anything else is no page. */
function slotIn(at: ProductPage, kind: string, locale: string): TemplateSlot & { slot: LocaleSlot } {
  if (!isMailKind(kind) || !(locale === 'all' || isLocale(locale))) throw new ApiError('not_found', 'No such page.');
  return { productId: at.product.id, kind, locale: locale === 'all' ? null : locale, slot: locale };
}

/** A form's field as the textarea held it: a browser sends each of its line breaks as CRLF, which would count twice against the bound. */
const field = (value: unknown): string => text(value).replace(/\r\n/g, '\n');
const sourceIn = (body: Record<string, unknown> | undefined): TemplateSource => ({ subject: field(body?.subject), text: field(body?.text), html: field(body?.html) });

/**
 * The editor's form, read whole whenever its parts are within their bounds, even one character past
 * each (refused then by the bound, not as unreadable): URL-encoded, a character takes at most 12 bytes
 * (4 in UTF-8, each %XX), and the rest of the form (the token, the names) fits in 4 KiB.
 */
const TEMPLATE_FORM_BYTES = 12 * Object.values(TEMPLATE_MAX_LENGTH).reduce((sum, length) => sum + length + 1, 0) + 4096;

/** A product's mail templates: by kind and language, edited with a live preview, test-sent to oneself, reset to the default. */
@Controller('dashboard/:productId/:mode/templates')
@UseGuards(DashboardGuard)
@UseFilters(LoginRedirect)
export class DashboardTemplatesController {
  constructor(
    private readonly templates: MailTemplatesService,
    private readonly testMails: TestMails,
    private readonly replies: Replies,
  ) {}

  @Get()
  async list(@InProduct() at: ProductPage, @Res() reply: FastifyReply): Promise<void> {
    await this.replies.page(reply, 200, templatesPage(at, await this.templates.list(at.product.id)));
  }

  @Get(':kind/:locale')
  async edit(@InProduct() at: ProductPage, @Param('kind') kind: string, @Param('locale') locale: string, @Res() reply: FastifyReply): Promise<void> {
    const slot = slotIn(at, kind, locale);
    const saved = await this.templates.find(slot);
    const source = saved ? { subject: saved.subject, text: saved.text, html: saved.html } : STARTERS[slot.kind];
    const notice = await this.replies.notice(at.identity, this.path(at, slot.kind, slot.slot));
    await this.replies.page(reply, 200, templateEditor(at, { kind: slot.kind, slot: slot.slot, source, saved: saved !== null, notice, ...(await this.tryPreview(at, slot, source)) }));
  }

  @Post(':kind/:locale')
  @BodyLimit(TEMPLATE_FORM_BYTES)
  async save(@InProduct() at: ProductPage, @Param('kind') kind: string, @Param('locale') locale: string, @Body() body: Record<string, unknown>, @Res() reply: FastifyReply): Promise<void> {
    const slot = slotIn(at, kind, locale);
    const source = sourceIn(body);
    try {
      await this.templates.save(slot, storableForm(source));
    } catch (error) {
      return this.refused(reply, at, slot, source, error);
    }
    await this.replies.redirectWith(reply, this.path(at, slot.kind, slot.slot), at.identity, { done: savedWords(slot.kind, slot.slot) });
  }

  /** The mail the fields make, as a real one of the kind would read, or why they are refused (400, with line and column), as JSON for the editor's script. */
  @Post(':kind/:locale/preview')
  @BodyLimit(TEMPLATE_FORM_BYTES)
  async preview(@InProduct() at: ProductPage, @Param('kind') kind: string, @Param('locale') locale: string, @Body() body: Record<string, unknown>, @Res() reply: FastifyReply): Promise<void> {
    const slot = slotIn(at, kind, locale);
    try {
      await reply.status(200).header('Cache-Control', 'no-store').send(await this.previewOf(at, slot, sourceIn(body)));
    } catch (error) {
      if (!(error instanceof TemplateProblem)) throw error;
      const { part, line, column } = error.refused;
      await reply.status(400).header('Cache-Control', 'no-store').send({ error: { code: error.code, message: error.message, param: part, line, column } });
    }
  }

  /** The fields as typed, rendered as a real mail of the kind would be, to the signed-in member's own address. */
  @Post(':kind/:locale/test')
  @BodyLimit(TEMPLATE_FORM_BYTES)
  async test(@InProduct() at: ProductPage, @Param('kind') kind: string, @Param('locale') locale: string, @Body() body: Record<string, unknown>, @Res() reply: FastifyReply): Promise<void> {
    const slot = slotIn(at, kind, locale);
    const source = sourceIn(body);
    let mail: TemplateSource;
    try {
      mail = await this.previewOf(at, slot, source);
    } catch (error) {
      return this.refused(reply, at, slot, source, error);
    }
    try {
      await this.testMails.send(at.identity.user.email, at.product, mail);
    } catch {
      return this.refused(reply, at, slot, source, new ApiError('mail_failed', 'The mail server did not take the test mail; try again.'));
    }
    await this.replies.redirectWith(reply, this.path(at, slot.kind, slot.slot), at.identity, { done: `A test mail went to ${at.identity.user.email}.` });
  }

  /** What going back to the default loses; its button posts to reset. */
  @Get(':kind/:locale/reset')
  async confirmReset(@InProduct() at: ProductPage, @Param('kind') kind: string, @Param('locale') locale: string, @Res() reply: FastifyReply): Promise<void> {
    const slot = slotIn(at, kind, locale);
    await this.replies.page(reply, 200, resetTemplatePage(at, slot.kind, slot.slot));
  }

  @Post(':kind/:locale/reset')
  async reset(@InProduct() at: ProductPage, @Param('kind') kind: string, @Param('locale') locale: string, @Res() reply: FastifyReply): Promise<void> {
    const slot = slotIn(at, kind, locale);
    await this.templates.reset(slot);
    await this.replies.redirectWith(reply, this.path(at, slot.kind, slot.slot), at.identity, { done: 'Back to the default: this template is gone.' });
  }

  private path(at: ProductPage, kind: MailKind, slot: LocaleSlot): string {
    return `${at.base}/templates/${kind}/${slot}`;
  }

  /** The mail as the slot's language would have it: a template for every language in the product's default language. */
  private previewOf(at: ProductPage, slot: TemplateSlot, source: TemplateSource): Promise<TemplateSource> {
    return this.templates.preview(slot.kind, source, at.product, at.mode, slot.locale ?? at.product.defaultLocale);
  }

  private async tryPreview(at: ProductPage, slot: TemplateSlot, source: TemplateSource): Promise<{ preview?: TemplateSource; error?: string }> {
    try {
      return { preview: await this.previewOf(at, slot, source) };
    } catch (error) {
      if (error instanceof TemplateProblem) return { error: error.message };
      throw error;
    }
  }

  /** The editor again, as typed, with why it was refused. */
  private async refused(reply: FastifyReply, at: ProductPage, slot: TemplateSlot & { slot: LocaleSlot }, source: TemplateSource, error: unknown): Promise<void> {
    if (!(error instanceof ApiError)) throw error;
    const saved = (await this.templates.find(slot)) !== null;
    await this.replies.page(reply, error.status, templateEditor(at, { kind: slot.kind, slot: slot.slot, source, saved, error: error.message }));
  }
}
