import type { EntryRecord, EntryState } from '../database/entities';

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

export function toEntry(record: EntryRecord): Entry {
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
