import type { KnownFormat } from './format';

/**
 * Prefinery's user export: status and applied at, as its import takes them (docs: help.prefinery.com,
 * "import users onto the waiting list"); applied is the waiting list. referred by names the referrer's
 * address.
 */
export const PREFINERY: KnownFormat = {
  name: 'prefinery',
  columns: {
    email: 'email',
    createdAt: 'applied at',
    referralCode: 'referral code',
    referredBy: 'referred by',
    referralCount: 'referrals',
    state: 'status',
  },
  signature: ['applied at', 'status'],
};
