import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Clock, recordEvents, toEntry } from '@app/shared';
import { createHash, Hash } from 'node:crypto';
import { Readable } from 'node:stream';
import { DataSource } from 'typeorm';
import { ApiError } from '../common/api-error';
import type { ProductScope } from '../common/scope';
import { CsvReader, CsvRecord, csvParseRecords } from './csv-records';
import { Columns, columnsOf } from './formats/columns';
import { isProblem, readRow, RowProblem } from './import-row';
import { IMPORT_BODY_LIMIT, ImportQuery, ImportReport, REPORT_LIST_LIMIT } from './imports.dto';
import { StagedImport } from './staged-import';

/** Why an import given a dry run's checksum wrote nothing: it read other rows, or read them another way. */
export const NOT_THE_CHECKED_FILE =
  'The file is not the one the dry run checked (a row, the mapping or the state differs); nothing was imported. Run the dry run on this file first.';

/** Entries per batch of events, when an import emits them. */
const EVENT_BATCH = 1000;

export interface ImportOptions extends ImportQuery {
  /** The request (or CLI run) that imports, carried to the confirmation mails' log lines. */
  requestId: string;
}

/**
 * Imports a waitlist from a CSV file into a product and mode, for the API, the CLI and the dashboard
 * alike. The file is read as it arrives, its rows staged in batches, and everything written in one
 * transaction at the end: an import happens whole or not at all, and a dry run rolls it back.
 */
@Injectable()
export class ImportsService {
  /** How CSV bytes become records (csv-parse); a test or another edge may read records itself. */
  readonly reader: CsvReader = csvParseRecords;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly clock: Clock,
  ) {}

  /** Imports CSV bytes, refusing more than IMPORT_BODY_LIMIT of them. */
  importCsv(scope: ProductScope, source: Readable, options: ImportOptions): Promise<ImportReport> {
    return this.importRecords(scope, this.records(source), options);
  }

  /** The records of CSV bytes as an import reads them, refusing more than IMPORT_BODY_LIMIT of them. */
  records(source: Readable): AsyncIterable<CsvRecord> {
    return this.reader(Readable.from(limited(source, IMPORT_BODY_LIMIT)));
  }

  /** Imports records whose first is the header row. */
  async importRecords(scope: ProductScope, records: AsyncIterable<CsvRecord>, options: ImportOptions): Promise<ImportReport> {
    const runner = this.db.createQueryRunner();
    const staged = new StagedImport(runner, scope);
    const now = this.clock.now();
    const checksum = checksumOf(options);
    try {
      await staged.open();
      let columns: Columns | undefined;
      let rows = 0;
      let invalid = 0;
      const problems: RowProblem[] = [];
      for await (const record of records) {
        checksum.update(`${JSON.stringify([record.line, record.fields])}\n`);
        if (!columns) {
          columns = columnsOf(record.fields, options.mapping);
          continue;
        }
        rows += 1;
        const row = readRow(record.line, record.fields, columns, options.state, now);
        if (!isProblem(row)) {
          await staged.add(row);
          continue;
        }
        invalid += 1;
        if (problems.length < REPORT_LIST_LIMIT) problems.push(row);
      }
      if (!columns) throw new ApiError('invalid_request', 'The file is empty: it needs a header row and a row per address.');
      const read = checksum.digest('hex');
      if (options.checksum !== undefined && options.checksum !== read) {
        throw new ApiError('invalid_request', NOT_THE_CHECKED_FILE, { param: 'checksum' });
      }
      await staged.classify();
      if (!options.dryRun) {
        await staged.write(now, { useFileCounts: columns.at.referralCount !== undefined, confirmationMails: options.confirmationMails, requestId: options.requestId });
        if (options.events) await this.emit(staged, scope, now);
      }
      const report = await this.report(staged, { format: columns.format, rows, invalid, problems, dryRun: options.dryRun, checksum: read });
      if (options.dryRun) await staged.rollback();
      else await staged.commit();
      return report;
    } finally {
      await staged.rollback();
      await runner.release();
    }
  }

  private async report(
    staged: StagedImport,
    read: { format: string; rows: number; invalid: number; problems: RowProblem[]; dryRun: boolean; checksum: string },
  ): Promise<ImportReport> {
    const counts = await staged.counts();
    const duplicates = await staged.outcomes(REPORT_LIST_LIMIT);
    const problems = [...read.problems];
    const lines: ImportReport['lines'] = read.problems.map((problem) => ({ line: problem.line, email: null, outcome: 'invalid' }));
    for (const row of duplicates) {
      if (row.outcome === 'duplicate') {
        problems.push({ line: row.line, reason: 'duplicate', message: 'An earlier line has the same address.' });
        lines.push({ line: row.line, email: row.email, outcome: 'invalid' });
      } else lines.push({ line: row.line, email: row.email, outcome: row.outcome });
    }
    const byLine = (a: { line: number }, b: { line: number }) => a.line - b.line;
    return {
      dryRun: read.dryRun,
      format: read.format,
      rows: read.rows,
      created: counts.create,
      confirmed: counts.confirmed,
      pending: counts.pending,
      existing: counts.existing,
      suppressed: counts.suppressed,
      invalid: read.invalid + counts.duplicate,
      referralCodesKept: counts.referralCodesKept,
      referralsLinked: counts.referralsLinked,
      lines: lines.sort(byLine).slice(0, REPORT_LIST_LIMIT),
      problems: problems.sort(byLine).slice(0, REPORT_LIST_LIMIT),
      checksum: read.checksum,
    };
  }

  /** entry.created for every created entry, and entry.confirmed for each that joined the line, in batches. */
  private async emit(staged: StagedImport, scope: ProductScope, now: Date): Promise<void> {
    for (let after = 0; ; ) {
      const created = await staged.createdAfter(after, EVENT_BATCH);
      if (created.length === 0) return;
      const entries = created.map(toEntry);
      await recordEvents(staged.manager, 'entry.created', scope, entries, now);
      await recordEvents(staged.manager, 'entry.confirmed', scope, entries.filter((entry) => entry.state === 'confirmed'), now);
      after = created.at(-1)!.line;
    }
  }
}

/**
 * The check of what an import reads: a SHA-256 of the options that decide each row's outcome (mapping,
 * state), then, as the records arrive, of each record and its line. The same rows read the same way
 * are the same check, whatever the bytes around them (line ends, a byte order mark, quoting).
 */
function checksumOf(options: ImportOptions): Hash {
  const mapping = options.mapping ? Object.entries(options.mapping).sort() : null;
  return createHash('sha256').update(`${JSON.stringify([mapping, options.state])}\n`);
}

/** The stream, failing with 400 invalid_request once more than `limit` bytes came through. */
async function* limited(source: Readable, limit: number): AsyncGenerator<Buffer> {
  let seen = 0;
  for await (const chunk of source as AsyncIterable<Buffer>) {
    seen += chunk.length;
    if (seen > limit) throw new ApiError('invalid_request', `The file is larger than ${limit / 1024 / 1024} MiB; import it in parts.`);
    yield chunk;
  }
}
