import type { KnownFormat } from './format';

/** This service's own CSV download (the dashboard's entries list), so that a list moves between installations. */
export const WAITLIST: KnownFormat = {
  name: 'waitlist',
  columns: { email: 'email', createdAt: 'createdat', referralCode: 'referralcode', referralCount: 'referrals', state: 'state' },
  signature: ['confirmedat', 'invitedat', 'redeemedat'],
};
