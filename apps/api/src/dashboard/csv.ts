import { ATTRIBUTION_FIELDS, Entry } from '@app/shared';
import type { EntryPage } from '../entries/entries.dto';
import type { EntryDetails } from '../entries/profile.service';

const CSV_COLUMNS = ['id', 'email', 'state', 'createdAt', 'confirmedAt', 'invitedAt', 'redeemedAt', 'referralCode', 'referrals'] as const;
// After the entry's own columns, so that a spreadsheet or script reading them by position keeps working.
export const CSV_HEADER = `${[...CSV_COLUMNS, ...ATTRIBUTION_FIELDS, 'answers'].join(',')}\r\n`;

/**
 * RFC 4180 CSV rows, with each entry's attribution and its answers as one JSON object; a cell that a
 * spreadsheet would run as a formula (= + - @) is prefixed with '.
 */
export function csvRows(entries: Entry[], details: Map<string, EntryDetails>): string {
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
  pageAfter: (cursor: string | undefined) => Promise<EntryPage>,
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
