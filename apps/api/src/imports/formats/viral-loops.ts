import type { KnownFormat } from './format';

/**
 * Viral Loops' participant export, with the columns its import takes (docs: Viral Loops, "import
 * participants from a CSV file": email, firstname, lastname, id, referrerId, referralCount): referrerId
 * names the referrer by its id column.
 */
export const VIRAL_LOOPS: KnownFormat = {
  name: 'viral-loops',
  columns: {
    email: 'email',
    createdAt: 'createdat',
    referralCode: 'referralcode',
    referredBy: 'referrerid',
    referralCount: 'referralcount',
    id: 'id',
  },
  signature: ['referrerid', 'referralcount'],
};
