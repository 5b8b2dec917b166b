import type { KnownFormat } from './format';

/**
 * LaunchList's submissions export, named as its new_user webhook names the fields (referral_code,
 * referred_by, email_verified); LaunchList documents no column list, so this is the layout as we found it.
 */
export const LAUNCHLIST: KnownFormat = {
  name: 'launchlist',
  columns: {
    email: 'email',
    createdAt: 'submitted_at',
    referralCode: 'referral_code',
    referredBy: 'referred_by',
    referralCount: 'referral_count',
    state: 'email_verified',
  },
  signature: ['submitted_at', 'email_verified'],
};
