import { ATTRIBUTION_FIELDS } from '@app/shared';
import type { Page } from '../../entries/cursor';
import type { EntryWithLocale } from '../../entries/entries.service';
import type { EntryDetails } from '../../entries/profile.service';

/** The API's Entry fields, then what the dashboard adds at the end (so that a reader of the old columns by position keeps working). */
const CSV_COLUMNS = ['id', 'email', 'state', 'createdAt', 'confirmedAt', 'invitedAt', 'redeemedAt', 'referralCode', 'referrals', 'locale'] as const;
export const CSV_HEADER = `${[...CSV_COLUMNS, ...ATTRIBUTION_FIELDS, 'answers'].join(',')}\r\n`;

/**
 * RFC 4180 CSV rows, with each entry's language, its attribution and its answers as one JSON object;
 * a cell that a spreadsheet would run as a formula (= + - @) is prefixed with '.
 */
export function csvRows(entries: EntryWithLocale[], details: Map<string, EntryDetails>): string {
  const cell = (value: string | number | null | undefined) => {
    const text = value === null || value === undefined ? '' : String(value);
    const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
    return /[",\r\n']/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
  };
  return entries
    .map((entry) => {
      const detail = details.get(entry.id);
      const answers = detail && Object.keys(detail.answers).length ? JSON.stringify(detail.answers) : null;
      const cells = [...CSV_COLUMNS.map((column) => entry[column]), ...ATTRIBUTION_FIELDS.map((field) => detail?.attribution[field]), answers];
      return `${cells.map(cell).join(',')}\r\n`;
    })
    .join('');
}

/** Every page of a listing as CSV, one page at a time, so that a long list is never held whole. */
export async function* csvOf(
  pageAfter: (cursor: string | undefined) => Promise<Page<EntryWithLocale>>,
  detailsOf: (ids: string[]) => Promise<Map<string, EntryDetails>>,
): AsyncGenerator<string> {
  yield CSV_HEADER;
  let cursor: string | undefined;
  do {
    const page = await pageAfter(cursor);
    yield csvRows(page.data, await detailsOf(page.data.map((entry) => entry.id)));
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
}
