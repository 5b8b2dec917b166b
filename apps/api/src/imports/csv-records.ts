import { parse } from 'csv-parse';
import type { Readable } from 'node:stream';
import { ApiError } from '../common/api-error';

/** One record of a CSV file: its cells, and the line of the file it starts on (1 is the header's). */
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
  // The lines are counted here, as each record is parsed (a later error drops the records still
  // waiting to be read, not their count): csv-parse's own count takes a \r\n inside a quoted cell for
  // two lines. A record starts after the empty lines skipped before it; its quoted cells' line breaks are its own.
  let next = 1;
  let skipped = 0;
  const startOf = (emptyLines: number) => {
    next += emptyLines - skipped;
    skipped = emptyLines;
    return next;
  };
  const starts: number[] = [];
  const parser = parse({
    bom: true,
    // Exports differ (Excel's \r\n, a tool's \n): guessed from the first line, a file that mixes them would keep its \r.
    record_delimiter: ['\r\n', '\n'],
    relax_column_count: true,
    skip_empty_lines: true,
    max_record_size: MAX_RECORD_BYTES,
    on_record: (fields: string[], { empty_lines }) => {
      const line = startOf(empty_lines);
      next = line + 1 + fields.reduce((breaks, field) => breaks + (field.match(/\r\n|\n/g)?.length ?? 0), 0);
      starts.push(line);
      return fields;
    },
  });
  // pipe() does not pass the source's error on (a body over the limit, a client gone): the records end with it.
  source.once('error', (error) => parser.destroy(error));
  source.pipe(parser);
  try {
    for await (const fields of parser as AsyncIterable<string[]>) yield { line: starts.shift()!, fields };
  } catch (error) {
    if (error instanceof ApiError) throw error;
    const emptyLines = (error as { empty_lines?: number }).empty_lines;
    throw new ApiError('invalid_request', `The file could not be read as CSV${emptyLines === undefined ? '' : ` at line ${startOf(emptyLines)}`}.`);
  }
};
