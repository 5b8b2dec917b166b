import { z } from 'zod';

export const ENTRY_STATES = ['pending', 'confirmed', 'invited', 'redeemed'] as const;
export type EntryState = (typeof ENTRY_STATES)[number];

/** An ISO 8601 UTC timestamp with milliseconds, as every answer and event writes times. */
export const TIMESTAMP = z.iso.datetime({ precision: 3 }).meta({ example: '2026-11-23T09:30:00.000Z' });

/**
 * The Entry resource, as the API returns it and events carry it, with exactly these fields (strict, so
 * that the OpenAPI document says so for answers and webhook bodies alike).
 */
export const ENTRY = z
  .strictObject({
    id: z.string().meta({ description: 'Stable id of the entry.', example: 'ent_5f0c2a9e4b7d1c3a8e6f9b20' }),
    email: z.string().meta({ description: 'The address, trimmed and lowercased.', example: 'ada@example.com' }),
    state: z.enum(ENTRY_STATES).meta({ description: 'pending until the address is confirmed, then confirmed (in line), invited, redeemed.' }),
    createdAt: TIMESTAMP.meta({ description: 'When the address signed up, or last asked for a new confirmation mail.' }),
    confirmedAt: TIMESTAMP.nullable().meta({ description: 'When the address was confirmed; null until then.' }),
    invitedAt: TIMESTAMP.nullable().meta({ description: 'When the entry was first invited (sending the invitation again keeps it); null until then.' }),
    redeemedAt: TIMESTAMP.nullable().meta({ description: 'When its invitation code was redeemed; null until then.' }),
    referralCode: z.string().nullable().meta({ description: 'Code of its referral link (?ref=…); null while pending.', example: 'k7m3x9q2w4zr' }),
    referrals: z.number().int().min(0).meta({ description: 'Sign-ups through its referral link that confirmed and counted.' }),
  })
  .meta({ id: 'Entry', description: 'One address on one product\'s waitlist.' });
export type Entry = z.infer<typeof ENTRY>;

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/** What toEntry reads of a stored entry (an EntryRecord). */
export interface StoredEntry {
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

/** The columns of a StoredEntry in SQL, named as toEntry reads them, for a statement that returns entries without the ORM. */
export const STORED_ENTRY_COLUMNS = `email, state, created_at AS "createdAt", confirmed_at AS "confirmedAt", invited_at AS "invitedAt",
  redeemed_at AS "redeemedAt", referral_code AS "referralCode", referrals`;

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
