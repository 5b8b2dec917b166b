import { Body, Controller, Get, Param, Post, Res, UseFilters, UseGuards } from '@nestjs/common';
import type { Product } from '@app/shared';
import type { FastifyReply } from 'fastify';
import { ApiError } from '../../common/api-error';
import { PRODUCT_SETTINGS, ProductSettings, ProductsService } from '../../products/products.service';
import { rulesAsText } from '../../referrals/protection';
import { DashboardGuard, LoginRedirect } from '../auth/dashboard.guard';
import { parseForm, text } from '../shared/forms';
import { refusal } from '../shared/messages';
import { InProduct, ProductPage } from '../shared/product-page';
import { Replies } from '../shared/replies';
import { milestoneRows, milestoneRowsOf, milestonesOf, questionRows, questionRowsOf, questionsOf, typedMilestoneRows, typedQuestionRows } from './settings-builders';
import { sectionSchema, settingsSection, SettingsSection } from './settings-sections';
import { settingsIndexPage, settingsSectionPage } from './pages';

/** A product's settings, a section at a time; they are the same in both modes. */
@Controller('dashboard/:productId/:mode')
@UseGuards(DashboardGuard)
@UseFilters(LoginRedirect)
export class DashboardSettingsController {
  constructor(
    private readonly products: ProductsService,
    private readonly replies: Replies,
  ) {}

  @Get('settings')
  async index(@InProduct() at: ProductPage, @Res() reply: FastifyReply): Promise<void> {
    await this.replies.page(reply, 200, settingsIndexPage(at));
  }

  @Get('settings/:section')
  async show(@InProduct() at: ProductPage, @Param('section') path: string, @Res() reply: FastifyReply): Promise<void> {
    const section = sectionAt(path);
    const notice = await this.replies.notice(at.identity, `${at.base}/settings/${section.path}`);
    const { product } = at;
    await this.replies.page(reply, 200, settingsSectionPage(at, section, { values: storedValues(product), milestones: milestoneRowsOf(product.milestones), questions: questionRowsOf(product.questions) }, notice));
  }

  /** Saves the section's own fields, and only them; a refusal shows the form as typed, its error beside its field. */
  @Post('settings/:section')
  async save(@InProduct() at: ProductPage, @Param('section') path: string, @Body() body: Record<string, unknown>, @Res() reply: FastifyReply): Promise<void> {
    const section = sectionAt(path);
    const values = Object.fromEntries(section.fields.map((field) => [field, text(body?.[field])]));
    const rows = { milestones: milestoneRows(body), questions: questionRows(body) };
    try {
      await this.products.update(at.product.id, changesOf(section, values, rows));
    } catch (error) {
      const { status, words, param } = refusal(error);
      const form = { values, milestones: typedMilestoneRows(rows.milestones), questions: typedQuestionRows(rows.questions), error: { words, param } };
      return this.replies.page(reply, status, settingsSectionPage(at, section, form));
    }
    const to = `${at.base}/settings/${section.path}`;
    await this.replies.redirectWith(reply, to, at.identity, { done: `Saved. ${section.title}: what this page shows is in effect.` });
  }
}

const BUILT = ['milestones', 'questions'] as const;

function sectionAt(path: string): SettingsSection {
  const section = settingsSection(path);
  if (!section) throw new ApiError('not_found', 'No such page.');
  return section;
}

/** What a section's form changes: its fields by the API's own rules, its builders' rows as milestones or questions. */
function changesOf(section: SettingsSection, values: Record<string, string>, rows: { milestones: ReturnType<typeof milestoneRows>; questions: ReturnType<typeof questionRows> }): Partial<ProductSettings> {
  const plain = { ...section, fields: section.fields.filter((field) => !(BUILT as readonly string[]).includes(field)) };
  const changes: Partial<ProductSettings> = plain.fields.length ? parseForm(sectionSchema(plain), values) : {};
  if (section.fields.includes('milestones')) changes.milestones = milestonesOf(rows.milestones);
  if (section.fields.includes('questions')) changes.questions = questionsOf(rows.questions);
  return changes;
}

/** The product's settings as its forms show them. */
function storedValues(product: Product): Record<string, string> {
  const fields = Object.keys(PRODUCT_SETTINGS.shape) as (keyof ProductSettings)[];
  const values = Object.fromEntries(fields.map((field) => [field, String((product as unknown as Record<string, unknown>)[field] ?? '')]));
  return { ...values, ...rulesAsText(product.referralRules), signupHoneypot: product.signupHoneypot ? 'on' : 'off' };
}
