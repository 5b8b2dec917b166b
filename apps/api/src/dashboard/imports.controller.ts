import { Controller, Get, Post, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../common/api-error';
import { IMPORT_BODY_LIMIT, IMPORT_QUERY } from '../imports/imports.dto';
import { ImportsService } from '../imports/imports.service';
import { DashboardGuard, LoginRedirect } from './dashboard.guard';
import { parseForm } from './forms';
import { counted } from './messages';
import { InProduct, ProductPage } from './product-page';
import { Replies } from './replies';
import { formUpload } from './uploads';
import { ImportFields, importPage } from './views/imports';

/** Rows and bad rows a dry run's page lists: the report waits in the session between the post and the page. */
const DRY_RUN_SHOWN = 100;

/**
 * The Entries section's import: a dry run of the uploaded file first, then the import of the same file,
 * which its dry run's checksum holds to the rows that run showed (another file is refused).
 */
@Controller('dashboard/:productId/:mode')
@UseGuards(DashboardGuard)
@UseFilters(LoginRedirect)
export class DashboardImportsController {
  constructor(
    private readonly imports: ImportsService,
    private readonly replies: Replies,
  ) {}

  /** The upload form, or the report of the dry run that led here, with the form that imports the same file. */
  @Get('entries/import')
  async form(@InProduct() at: ProductPage, @Res() reply: FastifyReply): Promise<void> {
    const { report, problem, fields } = (await this.replies.notice(at.identity, `${at.base}/entries/import`))?.dryRun ?? {};
    await this.replies.page(reply, 200, importPage(at, { report, problem }, fields));
  }

  /**
   * A dry run goes back to the import page with its report, an import on to the entries with what it
   * did, a refused file back to the import page with the reason in words (post/redirect/get).
   */
  @Post('entries/import')
  async upload(@InProduct() at: ProductPage, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    let fields: ImportFields | undefined;
    try {
      const upload = await formUpload(request, 'file', IMPORT_BODY_LIMIT);
      fields = {
        mapping: upload.fields.mapping?.trim() ?? '',
        state: upload.fields.state ?? 'confirmed',
        confirmationMails: upload.fields.confirmationMails === 'true',
        events: upload.fields.events === 'true',
      };
      const dryRun = upload.fields.dryRun !== 'false';
      // The dashboard imports only a file whose dry run was shown: the import form carries that run's checksum.
      if (!dryRun && !upload.fields.checksum) throw new ApiError('invalid_request', 'Check the file (dry run) first: only a file whose dry run you have seen is imported.');
      const query = parseForm(IMPORT_QUERY, {
        dryRun: String(dryRun),
        ...(dryRun ? {} : { checksum: upload.fields.checksum }),
        ...(fields.mapping ? { mapping: fields.mapping } : {}),
        state: fields.state,
        confirmationMails: String(fields.confirmationMails),
        events: String(fields.events),
      });
      const report = await this.imports.importCsv(at.scope, upload.file, { ...query, requestId: request.id });
      if (report.dryRun) {
        const shown = { ...report, lines: report.lines.slice(0, DRY_RUN_SHOWN), problems: report.problems.slice(0, DRY_RUN_SHOWN) };
        return await this.replies.redirectWith(reply, `${at.base}/entries/import`, at.identity, { dryRun: { report: shown, fields } });
      }
      const summary = counted(
        'Imported {created, plural, one {# entry} other {# entries}} ({existing, number} already here, {suppressed, number} deleted or unsubscribed before, {invalid, plural, one {# bad row} other {# bad rows}}).',
        { created: report.created, existing: report.existing, suppressed: report.suppressed, invalid: report.invalid },
      );
      await this.replies.redirectWith(reply, `${at.base}/entries`, at.identity, { imported: summary });
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== 'invalid_request') throw error;
      await this.replies.redirectWith(reply, `${at.base}/entries/import`, at.identity, { dryRun: { problem: error.message, fields } });
    }
  }
}
