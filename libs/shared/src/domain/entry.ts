export const ENTRY_STATES = ['pending', 'confirmed', 'invited', 'redeemed'] as const;
export type EntryState = (typeof ENTRY_STATES)[number];

/** The Entry resource of SPEC.md, as the API returns it and events carry it. */
export interface Entry {
  id: string;
  email: string;
  state: EntryState;
  createdAt: string;
  confirmedAt: string | null;
  invitedAt: string | null;
  redeemedAt: string | null;
  referralCode: string | null;
  referrals: number;
}

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/** What toEntry reads of a stored entry (an EntryRecord). */
interface StoredEntry {
  id: string;
  email: string;
  state: EntryState;
  createdAt: Date;
  confirmedAt: Date | null;
  invitedAt: Date | null;
  redeemedAt: Date | null;
  referralCode: string | null;
  referrals: number;
}

export function toEntry(record: StoredEntry): Entry {
  return {
    id: record.id,
    email: record.email,
    state: record.state,
    createdAt: record.createdAt.toISOString(),
    confirmedAt: iso(record.confirmedAt),
    invitedAt: iso(record.invitedAt),
    redeemedAt: iso(record.redeemedAt),
    referralCode: record.referralCode,
    referrals: record.referrals,
  };
}
