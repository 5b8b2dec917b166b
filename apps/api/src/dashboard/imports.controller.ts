import { Controller, Get, Post, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { ApiError } from '../common/api-error';
import { IMPORT_BODY_LIMIT, IMPORT_QUERY } from '../imports/imports.dto';
import type { CsvRecord } from '../imports/csv-records';
import { ImportsService, NOT_THE_CHECKED_FILE } from '../imports/imports.service';
import { DashboardGuard, LoginRedirect } from './dashboard.guard';
import { parseForm } from './forms';
import { columnsOf, FileColumns, firstPicks, mappingOf, MAX_COLUMNS, picksOf, postedColumns, SAMPLE_ROWS, sameHeader, withHeader } from './import-columns';
import { counted } from './messages';
import { InProduct, ProductPage } from './product-page';
import { Replies } from './replies';
import { formUpload, hashed } from './uploads';
import { ImportFields, importPage } from './views/imports';

const NOT_THE_PICKED_FILE = 'This is not the file whose columns you picked: choose that file again, or start again with this one.';

/** Rows and bad rows a dry run's page lists: the report waits in the session between the post and the page. */
const DRY_RUN_SHOWN = 100;

/**
 * The Entries section's import: the uploaded file's columns with its first rows, a field picked beside
 * each, then a dry run of the same file (held to it by the digest of its bytes), then the import of the
 * same file, which its dry run's checksum holds to the rows that run showed (another file is refused).
 */
@Controller('dashboard/:productId/:mode')
@UseGuards(DashboardGuard)
@UseFilters(LoginRedirect)
export class DashboardImportsController {
  constructor(
    private readonly imports: ImportsService,
    private readonly replies: Replies,
  ) {}

  /** The upload form, the picked file's columns, or the report of the dry run that led here, with the form that imports the same file. */
  @Get('entries/import')
  async form(@InProduct() at: ProductPage, @Res() reply: FastifyReply): Promise<void> {
    const { report, problem, fields, columns } = (await this.replies.notice(at.identity, `${at.base}/entries/import`))?.dryRun ?? {};
    await this.replies.page(reply, 200, importPage(at, { report, problem, columns }, fields));
  }

  /**
   * A first upload goes back to the import page with the file's columns to pick fields for; a dry run
   * with its report, an import on to the entries with what it did, a refused file back to the import
   * page with the reason in words (post/redirect/get).
   */
  @Post('entries/import')
  async upload(@InProduct() at: ProductPage, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    let fields: ImportFields | undefined;
    let columns: FileColumns | undefined;
    try {
      const upload = await formUpload(request, 'file', IMPORT_BODY_LIMIT, MAX_COLUMNS + 10);
      fields = {
        picks: picksOf(upload.fields),
        state: upload.fields.state ?? 'confirmed',
        confirmationMails: upload.fields.confirmationMails === 'true',
        events: upload.fields.events === 'true',
      };
      columns = postedColumns(upload.fields);
      const bytes = createHash('sha256');
      const records = this.imports.records(Readable.from(hashed(upload.file, bytes)));
      if (!columns) {
        // Read to the end: the digest that holds the dry run to this file covers all of its bytes.
        const sample: CsvRecord[] = [];
        for await (const record of records) if (sample.length <= SAMPLE_ROWS) sample.push(record);
        columns = columnsOf(sample, bytes.digest('hex'));
        fields.picks = firstPicks(sample[0].fields);
        return await this.replies.redirectWith(reply, `${at.base}/entries/import`, at.identity, { dryRun: { columns, fields } });
      }
      const dryRun = upload.fields.dryRun !== 'false';
      // The dashboard imports only a file whose dry run was shown: the import form carries that run's checksum.
      if (!dryRun && !upload.fields.checksum) throw new ApiError('invalid_request', 'Check the file (dry run) first: only a file whose dry run you have seen is imported.');
      const file = await withHeader(records);
      if (!sameHeader(file.header, columns)) throw new ApiError('invalid_request', dryRun ? NOT_THE_PICKED_FILE : NOT_THE_CHECKED_FILE, { param: 'file' });
      const mapping = mappingOf(fields.picks, file.header);
      const query = parseForm(IMPORT_QUERY, {
        dryRun: String(dryRun),
        ...(dryRun ? {} : { checksum: upload.fields.checksum }),
        ...(mapping ? { mapping } : {}),
        state: fields.state,
        confirmationMails: String(fields.confirmationMails),
        events: String(fields.events),
      });
      const report = await this.imports.importRecords(at.scope, file.records, { ...query, requestId: request.id });
      if (report.dryRun) {
        if (bytes.digest('hex') !== columns.upload) {
          throw new ApiError('invalid_request', NOT_THE_PICKED_FILE, { param: 'file' });
        }
        const shown = { ...report, lines: report.lines.slice(0, DRY_RUN_SHOWN), problems: report.problems.slice(0, DRY_RUN_SHOWN) };
        return await this.replies.redirectWith(reply, `${at.base}/entries/import`, at.identity, { dryRun: { report: shown, fields, columns } });
      }
      const summary = counted(
        'Imported {created, plural, one {# entry} other {# entries}} ({existing, number} already here, {suppressed, number} deleted or unsubscribed before, {invalid, plural, one {# bad row} other {# bad rows}}).',
        { created: report.created, existing: report.existing, suppressed: report.suppressed, invalid: report.invalid },
      );
      await this.replies.redirectWith(reply, `${at.base}/entries`, at.identity, { done: summary });
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== 'invalid_request') throw error;
      await this.replies.redirectWith(reply, `${at.base}/entries/import`, at.identity, { dryRun: { problem: error.message, fields, columns } });
    }
  }
}
