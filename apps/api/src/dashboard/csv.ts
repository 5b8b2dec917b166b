import type { Page } from '../entries/cursor';
import type { EntryWithLocale } from '../entries/entries.service';

/** The API's Entry fields, then what the dashboard adds at the end (so that a reader of the old columns keeps working). */
const CSV_COLUMNS = ['id', 'email', 'state', 'createdAt', 'confirmedAt', 'invitedAt', 'redeemedAt', 'referralCode', 'referrals', 'locale'] as const;
export const CSV_HEADER = `${CSV_COLUMNS.join(',')}\r\n`;

/** RFC 4180 CSV rows; a cell that a spreadsheet would run as a formula (= + - @) is prefixed with '. */
export function csvRows(entries: EntryWithLocale[]): string {
  const cell = (value: string | number | null) => {
    const text = value === null ? '' : String(value);
    const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
    return /[",\r\n']/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
  };
  return entries.map((entry) => `${CSV_COLUMNS.map((column) => cell(entry[column])).join(',')}\r\n`).join('');
}

/** Every page of a listing as CSV, one page at a time, so that a long list is never held whole. */
export async function* csvOf(pageAfter: (cursor: string | undefined) => Promise<Page<EntryWithLocale>>): AsyncGenerator<string> {
  yield CSV_HEADER;
  let cursor: string | undefined;
  do {
    const page = await pageAfter(cursor);
    yield csvRows(page.data);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
}
