import { cutText, storableText, textLength } from '@app/shared';
import { z } from 'zod';
import { ApiError } from '../common/api-error';
import type { CsvRecord } from '../imports/csv-records';
import { likelyFields, recognisedExport } from '../imports/formats/columns';
import { headerName, IMPORT_FIELDS, ImportField } from '../imports/formats/format';
import { parseForm } from './forms';

/** The columns a picker offers (a form posts a field for each): an export has a dozen or two. */
export const MAX_COLUMNS = 60;
/** The rows shown under each column's header. */
export const SAMPLE_ROWS = 5;
/** A cell as the picker shows it, cut to this many characters. */
const CELL_CHARS = 60;

/**
 * An uploaded file as its column picker shows it: the header row, the first rows, and the SHA-256 of
 * its bytes, which holds the dry run to that very file. The picker's form carries it back (only to show
 * it again: what is read is always the file posted, checked against `upload`).
 */
export const FILE_COLUMNS = z.object({
  header: z.array(z.string().max(CELL_CHARS * 2)).min(1).max(MAX_COLUMNS),
  rows: z.array(z.array(z.string().max(CELL_CHARS * 2)).max(MAX_COLUMNS)).max(SAMPLE_ROWS),
  upload: z.string().regex(/^[0-9a-f]{64}$/, { message: 'expected the checksum of an uploaded file' }),
});
export type FileColumns = z.infer<typeof FILE_COLUMNS>;

/** The picker as the form posted it back, or undefined for a first upload (no picker shown yet). */
export function postedColumns(fields: Record<string, string>): FileColumns | undefined {
  if (fields.columns === undefined) return undefined;
  let posted: unknown;
  try {
    posted = JSON.parse(fields.columns);
  } catch {
    throw new ApiError('invalid_request', 'The columns of the file could not be read back; upload the file again.', { param: 'columns' });
  }
  return parseForm(FILE_COLUMNS, { ...(posted as object) });
}

/** A cell as the page shows it (and its form carries it back): storable text, cut by code points. */
function cut(cell: string): string {
  const text = storableText(cell);
  return textLength(text) > CELL_CHARS ? `${cutText(text, CELL_CHARS - 1)}…` : text;
}

/** The picker of a file from its first records and the digest of its bytes; an empty file is refused. */
export function columnsOf(sample: CsvRecord[], upload: string): FileColumns {
  const [header, ...rows] = sample;
  if (!header) throw new ApiError('invalid_request', 'The file is empty: it needs a header row and a row per address.');
  const width = Math.min(header.fields.length, MAX_COLUMNS);
  return { header: header.fields.slice(0, width).map(cut), rows: rows.map((row) => row.fields.slice(0, width).map(cut)), upload };
}

/** Whether a file posted has the header row of the picker's file (as the picker shows it). */
export const sameHeader = (header: string[], columns: FileColumns): boolean =>
  header.length === columns.header.length || (header.length > MAX_COLUMNS && columns.header.length === MAX_COLUMNS)
    ? columns.header.every((cell, index) => cut(header[index]) === cell)
    : false;

/** The field picked for each column, as the picker's selects (column0, column1, …) post them; '' for none. */
export function picksOf(fields: Record<string, string>): string[] {
  const picks: string[] = [];
  for (let index = 0; index < MAX_COLUMNS && fields[`column${index}`] !== undefined; index += 1) picks.push(fields[`column${index}`]);
  return picks;
}

/** A recognised export's fields, or those the headers name, as the picker first shows them. */
export const firstPicks = (header: string[]): string[] => likelyFields(header).map((field) => field ?? '');

/**
 * The import's mapping (JSON, column → field, as the API takes it) from the fields picked beside the
 * header row of the file posted; none when they are what its recognised export says anyway, so that
 * such a file imports as that export. A pick for a column the file does not have, or of no field, is
 * refused, naming it.
 */
export function mappingOf(picks: string[], header: string[]): string | undefined {
  const mapping: Record<string, ImportField> = {};
  picks.forEach((pick, index) => {
    if (pick === '') return;
    if (index >= header.length) throw new ApiError('invalid_request', `The file has no column ${index + 1}: ${pick} was picked for it.`, { param: `column${index}` });
    if (header[index].trim() === '') throw new ApiError('invalid_request', `The column ${index + 1} has no header: give it one in the file to import it.`, { param: `column${index}` });
    if (!(IMPORT_FIELDS as readonly string[]).includes(pick)) {
      throw new ApiError('invalid_request', `Pick one of ${IMPORT_FIELDS.join(', ')} for the column ${header[index]}.`, { param: `column${index}` });
    }
    if (Object.keys(mapping).some((column) => headerName(column) === headerName(header[index]))) throw new ApiError('invalid_request', `The file has two columns ${header[index]}: pick a field for one of them only.`, { param: `column${index}` });
    mapping[header[index]] = pick as ImportField;
  });
  const recognised = likelyFields(header);
  const asRecognised = picks.length === header.length && picks.every((pick, index) => pick === (recognised[index] ?? ''));
  if (asRecognised && recognisedExport(header)) return undefined;
  return JSON.stringify(mapping);
}

/** The records whose first is the header row, handed back whole with that header read. */
export async function withHeader(records: AsyncIterable<CsvRecord>): Promise<{ header: string[]; records: AsyncIterable<CsvRecord> }> {
  const iterator = records[Symbol.asyncIterator]();
  const first = await iterator.next();
  if (first.done) throw new ApiError('invalid_request', 'The file is empty: it needs a header row and a row per address.');
  async function* all(): AsyncGenerator<CsvRecord> {
    yield first.value;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  }
  return { header: first.value.fields, records: all() };
}
