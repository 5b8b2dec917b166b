import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Mode } from '@app/shared';
import type { CsvRecord } from '../../apps/api/src/imports/csv-records';
import { ImportOptions, ImportsService } from '../../apps/api/src/imports/imports.service';
import type { ImportReport } from '../../apps/api/src/imports/imports.dto';
import type { Stack } from './stack';

/** A fixture of test/fixtures/imports. */
export function fixture(name: string): string {
  return readFileSync(join(__dirname, '../fixtures/imports', name), 'utf8');
}

/**
 * The records of a small CSV text whose cells hold no quotes, commas or line breaks (as the fixtures
 * are written), numbered by line: what the CSV reader hands the import service.
 */
export async function* recordsOf(text: string): AsyncGenerator<CsvRecord> {
  const lines = text.split('\n');
  for (const [index, line] of lines.entries()) {
    if (line.trim() !== '') yield { line: index + 1, fields: line.split(',') };
  }
}

/** Imports a CSV text through the service that the API, the CLI and the dashboard share. */
export function importText(stack: Stack, scope: { productId: string; mode: Mode }, text: string, options: Partial<ImportOptions> = {}): Promise<ImportReport> {
  return stack.api.get(ImportsService).importRecords(scope, recordsOf(text), {
    dryRun: false,
    state: 'confirmed',
    confirmationMails: false,
    events: false,
    requestId: 'test',
    ...options,
  });
}
