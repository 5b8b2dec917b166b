import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { ApiError } from '../common/api-error';
import { parseInput } from '../common/validation';
import { IMPORT_QUERY, ImportReport } from '../imports/imports.dto';
import { ImportsService } from '../imports/imports.service';
import { ProductsService } from '../products/products.service';
import { mode, productMustExist } from './checks';
import { CliCommand, UsageError } from './command';
import { withServices } from './services';

interface Options {
  file: string;
  product: string;
  mode: string;
  dryRun?: boolean;
  mapping?: string;
  state?: string;
  confirmationMails?: boolean;
  events?: boolean;
}

export const entriesImport: CliCommand<Options> = {
  name: 'entries import',
  description: "imports a waitlist from a CSV export (GetWaitlist, Waitlister, Prefinery, Viral Loops, LaunchList, or any file with --mapping), as POST /api/v1/entries/import does",
  argument: { name: 'FILE', key: 'file', description: 'the CSV file' },
  options: [
    { flags: '--product <ID>', description: 'the product', required: true },
    { flags: '--mode <live|test>', description: 'the mode to import into', required: true },
    { flags: '--dry-run', description: 'read the whole file and print what would happen, writing nothing' },
    { flags: '--mapping <JSON>', description: 'a JSON object from column header to field, for a file of another tool' },
    { flags: '--state <confirmed|pending>', description: 'the state of a row whose file gives none (default confirmed)' },
    { flags: '--confirmation-mails', description: 'send a confirmation mail to every entry imported as pending' },
    { flags: '--events', description: 'emit entry.created and entry.confirmed for every imported entry' },
  ],
  run: async (options, config) => {
    const scope = { productId: options.product, mode: mode(options.mode) };
    const query = asUsage(() =>
      parseInput(IMPORT_QUERY, {
        dryRun: String(options.dryRun === true),
        mapping: options.mapping,
        state: options.state,
        confirmationMails: String(options.confirmationMails === true),
        events: String(options.events === true),
      }, 'option'),
    );
    if (!(await stat(options.file).catch(() => null))?.isFile()) throw new UsageError(`No file ${options.file}.`);
    return withServices(config, async (app) => {
      await productMustExist(app.get(ProductsService), options.product);
      const report = await app.get(ImportsService).importCsv(scope, createReadStream(options.file), { ...query, requestId: `cli-${process.pid}` });
      return { json: report, text: summary(report) };
    });
  },
};

/** A bad option value, said as the API would, with the command's usage. */
function asUsage<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof ApiError) {
      const flag = (error.details.param ?? 'option').split('.')[0].replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
      throw new UsageError(`--${flag}: ${error.message}`);
    }
    throw error;
  }
}

function summary(report: ImportReport): string {
  const lines = [
    `${report.dryRun ? 'Dry run (nothing written)' : 'Imported'}: ${report.rows} rows of a ${report.format} export.`,
    `${report.created} new (${report.confirmed} in line, ${report.pending} pending), ${report.existing} already there, ${report.suppressed} deleted or unsubscribed before, ${report.invalid} bad.`,
    ...report.problems.map((problem) => `line ${problem.line}: ${problem.message}`),
  ];
  if (report.invalid > report.problems.length) lines.push(`… and ${report.invalid - report.problems.length} more bad rows.`);
  return lines.join('\n');
}
