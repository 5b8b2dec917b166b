import { Readable } from 'node:stream';
import { ApiError } from '../common/api-error';
import { csvParseRecords } from './csv-records';

const read = async (text: string) => {
  const records: [number, string][] = [];
  for await (const record of csvParseRecords(Readable.from([Buffer.from(text)]))) records.push([record.line, record.fields[0]]);
  return records;
};
const failure = (text: string) => read(text).then(() => undefined, (error: ApiError) => error.message);

describe('csvParseRecords', () => {
  // Each record is numbered by the line it starts on, whatever line breaks its quoted cells hold.
  for (const [name, eol] of [['\\n', '\n'], ['\\r\\n', '\r\n']]) {
    it(`numbers each record by the line it starts on, after quoted line breaks and empty lines (${name})`, async () => {
      const file = ['email', '"a', 'b"', 'c', '', 'd', '"e', '', 'f"', 'g', ''].join(eol);
      expect(await read(file)).toEqual([
        [1, 'email'],
        [2, `a${eol}b`],
        [4, 'c'],
        [6, 'd'],
        [7, `e${eol}${eol}f`],
        [10, 'g'],
      ]);
    });

    it(`names the line a broken record starts on (${name})`, async () => {
      expect(await failure(['email', '"a', 'b"', '"unclosed', 'x', ''].join(eol))).toBe('The file could not be read as CSV at line 4.');
      expect(await failure(['email', '"a', '', 'b"', '', 'ok', '"x"y', ''].join(eol))).toBe('The file could not be read as CSV at line 7.');
    });
  }
});
