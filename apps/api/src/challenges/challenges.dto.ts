import { CHALLENGE_DIFFICULTY, CHALLENGE_MODES } from '@app/shared';
import { z } from 'zod';

/** GET /public/v1/challenge's query: the product's publishable key, as the sign-up takes it. */
export const CHALLENGE_QUERY = z.object({
  key: z.string().max(200).catch('').meta({ description: 'The publishable key (pk_live_… or pk_test_…) of the product and mode.', example: 'pk_live_…' }),
});

/**
 * An ALTCHA proof-of-work challenge: find the number n from 0 to maxnumber with SHA-256(salt + n) =
 * challenge (hex), then send base64(JSON {algorithm, challenge, number, salt, signature}) as the sign-up's `challenge`.
 */
export const CHALLENGE = z
  .object({
    algorithm: z.literal('SHA-256'),
    challenge: z.string().meta({ description: 'SHA-256 of salt + the number, in hex.' }),
    maxnumber: z.number().int().meta({ description: "The largest number to try: the product's difficulty." }),
    salt: z.string().meta({ description: 'Random, with the expiry and (a hash of) the product and mode it is for; used as it is.' }),
    signature: z.string().meta({ description: "The service's HMAC of the challenge, sent back unchanged." }),
  })
  .meta({ id: 'Challenge' });
export type Challenge = z.infer<typeof CHALLENGE>;

/** A solution as the sign-up brings it, decoded: anything else is no solution. */
export const SOLUTION = z.object({
  algorithm: z.literal('SHA-256'),
  challenge: z.string().regex(/^[0-9a-f]{64}$/),
  number: z.number().int().min(0).max(CHALLENGE_DIFFICULTY.max),
  salt: z.string().max(200),
  signature: z.string().regex(/^[0-9a-f]{64}$/),
});

/** The challenge's settings as the settings form and `products update` give them, as text; left out or empty stays as it is. */
export const CHALLENGE_SETTINGS_FORM = z.object({
  challengeMode: z.preprocess(
    (value) => (value === '' ? undefined : value),
    z.enum(CHALLENGE_MODES, { message: 'The sign-up challenge must be off, invisible or required' }).optional(),
  ),
  challengeDifficulty: z
    .string()
    .trim()
    .optional()
    .refine(
      (text) => !text || (/^\d{1,7}$/.test(text) && Number(text) >= CHALLENGE_DIFFICULTY.min && Number(text) <= CHALLENGE_DIFFICULTY.max),
      `The challenge difficulty must be a whole number from ${CHALLENGE_DIFFICULTY.min} to ${CHALLENGE_DIFFICULTY.max}`,
    )
    .transform((text) => (text ? Number(text) : undefined)),
});
