import type { KnownFormat } from './format';

/**
 * GetWaitlist's signup export, named as its Signup object is (docs: getwaitlist.com/docs/api-docs/schemas):
 * referred_by holds the referrer's referral_token; amount_referred its count; verified whether the
 * address was confirmed.
 */
export const GETWAITLIST: KnownFormat = {
  name: 'getwaitlist',
  columns: {
    email: 'email',
    createdAt: 'created_at',
    referralCode: 'referral_token',
    referredBy: 'referred_by',
    referralCount: 'amount_referred',
    state: 'verified',
  },
  signature: ['referral_token', 'amount_referred'],
};
