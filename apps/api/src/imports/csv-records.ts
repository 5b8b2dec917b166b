import { parse } from 'csv-parse';
import type { Readable } from 'node:stream';
import { ApiError } from '../common/api-error';

/** One record of a CSV file: its cells, and the line of the file it ends on (1 is the header's). */
export interface CsvRecord {
  line: number;
  fields: string[];
}

/** The records of a CSV byte stream, read as they arrive; a malformed file throws 400 invalid_request. */
export type CsvReader = (source: Readable) => AsyncIterable<CsvRecord>;

/** The longest record an import reads: a row of a waitlist export is a few hundred bytes. */
export const MAX_RECORD_BYTES = 64 * 1024;

/** The CsvReader over csv-parse (RFC 4180: quotes, quoted commas and line breaks, a byte order mark). */
export const csvParseRecords: CsvReader = async function* (source) {
  const parser = parse({
    bom: true,
    // Exports differ (Excel's \r\n, a tool's \n): guessed from the first line, a file that mixes them would keep its \r.
    // (csv-parse counts a \r\n inside a quoted cell as two lines; the lines after it are then named one too far.)
    record_delimiter: ['\r\n', '\n'],
    relax_column_count: true,
    skip_empty_lines: true,
    info: true,
    max_record_size: MAX_RECORD_BYTES,
  });
  // pipe() does not pass the source's error on (a body over the limit, a client gone): the records end with it.
  source.once('error', (error) => parser.destroy(error));
  source.pipe(parser);
  try {
    for await (const { record, info } of parser) yield { line: info.lines, fields: record };
  } catch (error) {
    if (error instanceof ApiError) throw error;
    const lines = (error as { lines?: number }).lines;
    throw new ApiError('invalid_request', `The file could not be read as CSV${lines ? ` at line ${lines}` : ''}.`);
  }
};
