import { LEADERBOARD_SETTINGS } from '@app/shared';
import { z } from 'zod';

/** GET /public/v1/leaderboard's query: the product's publishable key, as the sign-up takes it. */
export const LEADERBOARD_QUERY = z.object({
  key: z.string().min(1).max(200).meta({ description: 'The publishable key (pk_live_… or pk_test_…) of the product and mode.', example: 'pk_live_…' }),
});

/** One referrer on a leaderboard. */
export const LEADER = z.object({
  rank: z.number().int().min(1).meta({ description: '1 for the most credited referrals; at equal counts, who is ahead in line first.', example: 1 }),
  email: z.string().meta({ description: 'The address, masked on the public leaderboard: the first letter of the local part and of the domain, then the top-level domain.', example: 'j•••@g•••.com' }),
  referrals: z.number().int().min(1).meta({ description: 'Credited referrals (the entry\'s referrals).', example: 7 }),
});
export type Leader = z.infer<typeof LEADER>;

/** The top referrers of a product and mode. */
export const LEADERBOARD = z
  .object({ data: z.array(LEADER).meta({ description: 'At most the product\'s leaderboard size (10 unless set, 100 at most), best first; empty while nobody has a credited referral.' }) })
  .meta({ id: 'Leaderboard' });
export type Leaderboard = z.infer<typeof LEADERBOARD>;

/**
 * The leaderboard's settings as the settings form and `products update` give them, as text: where it
 * shows (off, test, live, both) and how many it lists (1–100); either left out or empty stays as it is.
 */
export const LEADERBOARD_SETTINGS_FORM = z.object({
  leaderboard: z.preprocess(
    (value) => (value === '' ? undefined : value),
    z.enum(LEADERBOARD_SETTINGS, { message: 'The leaderboard must be off, test, live or both' }).optional(),
  ),
  leaderboardSize: z
    .string()
    .trim()
    .refine((text) => text === '' || (/^\d{1,3}$/.test(text) && Number(text) >= 1 && Number(text) <= 100), 'The leaderboard size must be a whole number from 1 to 100')
    .transform((text) => (text === '' ? undefined : Number(text))),
});
