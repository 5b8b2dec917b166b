import type { Entry } from '@app/shared';

/** A waiting entry, as the examples of the answers and of the webhook bodies show it in each state. */
export const WAITING_ENTRY: Entry = {
  id: 'ent_5f0c2a9e4b7d1c3a8e6f9b20',
  email: 'ada@example.com',
  state: 'confirmed',
  createdAt: '2026-11-02T08:14:05.120Z',
  confirmedAt: '2026-11-02T08:16:41.503Z',
  invitedAt: null,
  redeemedAt: null,
  referralCode: 'k7m3x9q2w4zr',
  referrals: 2,
};

const LATER = '2026-11-23T09:30:00.000Z';

/** The example entry in `state`. */
export function exampleEntry(state: Entry['state']): Entry {
  if (state === 'pending') return { ...WAITING_ENTRY, state, confirmedAt: null, referralCode: null, referrals: 0 };
  if (state === 'confirmed') return WAITING_ENTRY;
  return { ...WAITING_ENTRY, state, invitedAt: LATER, redeemedAt: state === 'redeemed' ? LATER : null };
}
