import type { KnownFormat } from './format';

/**
 * Waitlister's subscriber export, as its subscribers table names its columns (docs: waitlister.me/docs/
 * manage-subscribers). Its Email Status is deliverability (deliverable, risky, …), not confirmation, so
 * no state is read from it: every row imports with the import's state.
 */
export const WAITLISTER: KnownFormat = {
  name: 'waitlister',
  columns: {
    email: 'email',
    createdAt: 'sign-up date',
    referralCode: 'referral code',
    referredBy: 'referred by',
    referralCount: 'referrals',
  },
  signature: ['sign-up date', 'email status'],
};
