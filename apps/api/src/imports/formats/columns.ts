import { z } from 'zod';
import { ApiError } from '../../common/api-error';
import { ColumnMapping, headerName, IMPORT_FIELDS, ImportField, KnownFormat } from './format';
import { GETWAITLIST } from './getwaitlist';
import { LAUNCHLIST } from './launchlist';
import { PREFINERY } from './prefinery';
import { VIRAL_LOOPS } from './viral-loops';
import { WAITLIST } from './waitlist';
import { WAITLISTER } from './waitlister';

/** Every format an import recognises by its header row, most specific first. */
export const KNOWN_FORMATS: readonly KnownFormat[] = [GETWAITLIST, WAITLISTER, PREFINERY, VIRAL_LOOPS, LAUNCHLIST, WAITLIST];

/** Where each field is in a row (a column index), and the name of the format that said so. */
export interface Columns {
  format: string;
  at: Partial<Record<ImportField, number>>;
}

/**
 * A team's own mapping, as the mapping query parameter or form field carries it: a JSON object from
 * header to field, e.g. {"Email Address": "email", "Joined": "createdAt"}; email must be mapped.
 */
export const CUSTOM_MAPPING = z
  .string()
  .transform((text, context) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      context.addIssue({ code: 'custom', message: 'expected a JSON object from column to field' });
      return z.NEVER;
    }
  })
  .pipe(z.record(z.string().min(1), z.enum(IMPORT_FIELDS, { message: `expected one of ${IMPORT_FIELDS.join(', ')}` })))
  .transform((byHeader, context) => {
    const mapping: Partial<ColumnMapping> = {};
    for (const [header, field] of Object.entries(byHeader)) {
      if (mapping[field] !== undefined) context.addIssue({ code: 'custom', message: `${field} is mapped twice` });
      mapping[field] = headerName(header);
    }
    if (!mapping.email) context.addIssue({ code: 'custom', message: 'no column is mapped to email' });
    return mapping as ColumnMapping;
  });

/** The first known format whose signature headers are all in the header row. */
export function recognisedExport(header: string[]): KnownFormat | undefined {
  const names = header.map(headerName);
  return KNOWN_FORMATS.find((known) => known.signature.every((name) => names.includes(name)));
}

/**
 * The columns of a file from its header row: the team's mapping when given, else the first known
 * format whose signature headers are all there. 400 invalid_request when neither fits, naming the headers.
 */
export function columnsOf(header: string[], custom?: ColumnMapping): Columns {
  const names = header.map(headerName);
  const format = custom ? { name: 'custom', columns: custom, signature: [] } : recognisedExport(header);
  if (!format) {
    throw new ApiError(
      'invalid_request',
      `The header row (${names.slice(0, 12).join(', ')}) is not an export we recognise (${KNOWN_FORMATS.map((known) => known.name).join(', ')}); pass a mapping.`,
      { param: 'mapping' },
    );
  }
  const at: Columns['at'] = {};
  for (const field of IMPORT_FIELDS) {
    const column = format.columns[field];
    if (column === undefined) continue;
    const index = names.indexOf(column);
    if (index >= 0) at[field] = index;
    else if (field === 'email' || custom) throw new ApiError('invalid_request', `The header row has no column ${column} (for ${field}).`, { param: 'mapping' });
  }
  return { format: format.name, at };
}

/** A header squeezed to letters and digits: "Created At", "created_at" and "createdAt" alike. */
const squeezed = (header: string) => headerName(header).replace(/[^a-z0-9]/g, '');

/**
 * The field each column of a header row likely holds, for a person to confirm: a recognised export's
 * columns, else a header that names a field ("Created At", "referral_code"; any header with "mail" in
 * it for email). A field goes to its first column only; undefined where none fits.
 */
export function likelyFields(header: string[]): (ImportField | undefined)[] {
  const recognised = recognisedExport(header) ? columnsOf(header).at : undefined;
  const taken = new Set<ImportField>();
  return header.map((cell, index) => {
    const field = recognised
      ? IMPORT_FIELDS.find((name) => recognised[name] === index)
      : IMPORT_FIELDS.find((name) => squeezed(cell) === name.toLowerCase() || (name === 'email' && squeezed(cell).includes('mail')));
    if (!field || taken.has(field)) return undefined;
    taken.add(field);
    return field;
  });
}
