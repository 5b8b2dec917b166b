/** What an import reads of a row: the address, and what the tool it came from knew about it. */
export const IMPORT_FIELDS = ['email', 'createdAt', 'referralCode', 'referredBy', 'referralCount', 'state', 'id'] as const;
export type ImportField = (typeof IMPORT_FIELDS)[number];

/** Which header (as the file spells it, any case) holds each field; email is the one a mapping must name. */
export type ColumnMapping = { email: string } & Partial<Record<Exclude<ImportField, 'email'>, string>>;

/** A waitlist tool whose CSV export an import recognises by its header row. */
export interface KnownFormat {
  name: string;
  /** The columns of its export, by field. */
  columns: ColumnMapping;
  /** Headers that only this tool's export has together: present, the file is this tool's. */
  signature: string[];
}

/** A header as the formats name it: trimmed, lowercased, without a byte order mark. */
export function headerName(header: string): string {
  return header.replace(/^\uFEFF/, '').trim().toLowerCase();
}
