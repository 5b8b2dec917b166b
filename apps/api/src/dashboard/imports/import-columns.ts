import { cutText, storableText, textLength } from '@app/shared';
import { ApiError } from '../../common/api-error';
import type { CsvRecord } from '../../imports/csv-records';
import { likelyFields, recognisedExport } from '../../imports/formats/columns';
import { headerName, IMPORT_FIELDS, ImportField } from '../../imports/formats/format';
import type { FileColumns } from '../auth/notice';

/** The columns a picker offers (a form posts a field for each): an export has a dozen or two. */
export const MAX_COLUMNS = 60;
/** The rows shown under each column's header. */
const SAMPLE_ROWS = 5;
/** A cell as the picker shows it, cut to this many characters. */
const CELL_CHARS = 60;

/** A cell as the page shows it: storable text, cut by code points. */
function cut(cell: string): string {
  const text = storableText(cell);
  return textLength(text) > CELL_CHARS ? `${cutText(text, CELL_CHARS - 1)}…` : text;
}

/**
 * What the picker first shows of a file, from its first records: its columns, and the fields of a
 * recognised export or those its headers name. An empty file is refused.
 */
export async function firstLook(records: AsyncIterable<CsvRecord>): Promise<{ columns: FileColumns; picks: string[] }> {
  const sample: CsvRecord[] = [];
  for await (const record of records) {
    sample.push(record);
    if (sample.length > SAMPLE_ROWS) break;
  }
  const [header, ...rows] = sample;
  if (!header) throw new ApiError('invalid_request', 'The file is empty: it needs a header row and a row per address.');
  const width = Math.min(header.fields.length, MAX_COLUMNS);
  return {
    columns: { header: header.fields.slice(0, width).map(cut), rows: rows.map((row) => row.fields.slice(0, width).map(cut)) },
    picks: likelyFields(header.fields).map((field) => field ?? ''),
  };
}

/** The field picked for each column, as the picker's selects (column0, column1, …) post them; '' for none. */
export function picksOf(fields: Record<string, string>): string[] {
  const picks: string[] = [];
  for (let index = 0; index < MAX_COLUMNS && fields[`column${index}`] !== undefined; index += 1) picks.push(fields[`column${index}`]);
  return picks;
}

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
