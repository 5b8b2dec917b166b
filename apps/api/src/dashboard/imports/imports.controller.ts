import { Body, Controller, Get, Post, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { ApiError } from '../../common/api-error';
import { HeldFile, HeldUploads, UploadOwner } from '../../imports/held-uploads';
import { IMPORT_BODY_LIMIT, IMPORT_QUERY } from '../../imports/imports.dto';
import { ImportsService } from '../../imports/imports.service';
import { DashboardGuard, LoginRedirect } from '../auth/dashboard.guard';
import { parseForm, text } from '../shared/forms';
import { firstLook, mappingOf, picksOf, withHeader } from './import-columns';
import { counted } from '../shared/messages';
import type { FileColumns, ImportFields } from '../auth/notice';
import { InProduct, ProductPage } from '../shared/product-page';
import { Replies } from '../shared/replies';
import { formUpload, wholeFile } from './uploads';
import { importPage, NO_FIELDS } from './pages';

/** Rows and bad rows a dry run's page lists: the report waits in the session between the post and the page. */
const DRY_RUN_SHOWN = 100;

/**
 * The Entries section's import: the file is uploaded once and held on the server (HeldUploads, for an
 * hour); its columns with its first rows, a field picked beside each, then a dry run of the held file,
 * then the import of the same file, which its dry run's checksum holds to the rows that run showed.
 */
@Controller('dashboard/:productId/:mode')
@UseGuards(DashboardGuard)
@UseFilters(LoginRedirect)
export class DashboardImportsController {
  constructor(
    private readonly imports: ImportsService,
    private readonly uploads: HeldUploads,
    private readonly replies: Replies,
  ) {}

  /** The upload form, the held file's columns, or the report of the dry run that led here, with the form that imports the same file. */
  @Get('entries/import')
  async form(@InProduct() at: ProductPage, @Res() reply: FastifyReply): Promise<void> {
    const notice = await this.replies.notice(at.identity, `${at.base}/entries/import`);
    const { report, fields, columns, held } = notice?.dryRun ?? {};
    await this.replies.page(reply, 200, importPage(at, { report, columns, held, said: notice }, fields));
  }

  /** An upload is held, and goes back to the import page with its columns to pick fields for; a refused one with the reason in words (post/redirect/get). */
  @Post('entries/import')
  async upload(@InProduct() at: ProductPage, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    try {
      const upload = await formUpload(request, 'file', IMPORT_BODY_LIMIT);
      const bytes = await wholeFile(upload.file);
      const { columns, picks } = await firstLook(this.imports.records(Readable.from([bytes])));
      const held = await this.uploads.hold(ownerOf(at), upload.name, bytes);
      await this.replies.redirectWith(reply, `${at.base}/entries/import`, at.identity, { dryRun: { columns, held, fields: { ...NO_FIELDS, picks } } });
    } catch (error) {
      await this.refuse(reply, at, error);
    }
  }

  /**
   * The picker's dry run of the held file, with its report; the import of it, on to the entries with
   * what it did (the held file removed); a refusal back to the import page in words.
   */
  @Post('entries/import/staged')
  async staged(@InProduct() at: ProductPage, @Body() body: Record<string, unknown>, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const posted = Object.fromEntries(Object.entries(body ?? {}).map(([name, value]) => [name, text(value)]));
    const fields: ImportFields = {
      picks: picksOf(posted),
      state: posted.state || 'confirmed',
      confirmationMails: posted.confirmationMails === 'true',
      events: posted.events === 'true',
    };
    let shown: { held: HeldFile; columns: FileColumns } | undefined;
    try {
      const { bytes, ...held } = await this.uploads.take(ownerOf(at), posted.upload);
      shown = { held, columns: (await firstLook(this.imports.records(Readable.from([bytes])))).columns };
      const dryRun = posted.dryRun !== 'false';
      // The dashboard imports only a file whose dry run was shown: the import form carries that run's checksum.
      if (!dryRun && !posted.checksum) throw new ApiError('invalid_request', 'Check the file (dry run) first: only a file whose dry run you have seen is imported.');
      const file = await withHeader(this.imports.records(Readable.from([bytes])));
      const mapping = mappingOf(fields.picks, file.header);
      const query = parseForm(IMPORT_QUERY, {
        dryRun: String(dryRun),
        ...(dryRun ? {} : { checksum: posted.checksum }),
        ...(mapping ? { mapping } : {}),
        state: fields.state,
        confirmationMails: String(fields.confirmationMails),
        events: String(fields.events),
      });
      const report = await this.imports.importRecords(at.scope, file.records, { ...query, requestId: request.id });
      if (report.dryRun) {
        const listed = { ...report, lines: report.lines.slice(0, DRY_RUN_SHOWN), problems: report.problems.slice(0, DRY_RUN_SHOWN) };
        return await this.replies.redirectWith(reply, `${at.base}/entries/import`, at.identity, { dryRun: { report: listed, fields, ...shown } });
      }
      await this.uploads.drop(held.id);
      const summary = counted(
        'Imported {created, plural, one {# entry} other {# entries}} ({existing, number} already here, {suppressed, number} deleted or unsubscribed before, {invalid, plural, one {# bad row} other {# bad rows}}).',
        { created: report.created, existing: report.existing, suppressed: report.suppressed, invalid: report.invalid },
      );
      await this.replies.redirectWith(reply, `${at.base}/entries`, at.identity, { done: summary });
    } catch (error) {
      await this.refuse(reply, at, error, shown && { fields, ...shown });
    }
  }

  /** Back to the import page with why, in words: the held file's picker again if there is one, else the upload form. */
  private async refuse(reply: FastifyReply, at: ProductPage, error: unknown, dryRun?: { fields: ImportFields; held: HeldFile; columns: FileColumns }): Promise<void> {
    if (!(error instanceof ApiError) || error.code !== 'invalid_request') throw error;
    await this.replies.redirectWith(reply, `${at.base}/entries/import`, at.identity, { refused: error.message, dryRun });
  }
}

const ownerOf = (at: ProductPage): UploadOwner => ({ scope: at.scope, userId: at.identity.user.id });
