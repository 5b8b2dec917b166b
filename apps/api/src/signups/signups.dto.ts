import { z } from 'zod';

/** The public sign-up, as JSON or as an HTML form's fields. */
export const SIGNUP = z.object({
  // A missing or malformed key is an unknown key: 401, like any other.
  key: z.string().max(200).catch('').meta({ description: "The product's publishable key (pk_live_… or pk_test_…).", example: 'pk_live_…' }),
  // A missing or non-string address reads as '', so that it is invalid_email like any other bad one.
  email: z.string().catch('').meta({ description: 'The address to put on the list.', example: 'ada@example.com' }),
  // An unusable ref (too long, a NUL that PostgreSQL text cannot hold) is ignored like an unknown one.
  ref: z
    .string()
    .max(100)
    .regex(/^[^\0]*$/)
    .optional()
    .catch(undefined)
    .meta({ description: 'The referralCode of the link the person came through; an unknown one is ignored.', example: 'k7m3x9q2w4zr' }),
});

/** The same answer for every address, new or known, so that the endpoint tells nobody who is on a list. */
export const SIGNUP_RECEIVED = z.object({ status: z.literal('received') }).meta({ id: 'SignupReceived' });
export type SignupReceived = z.infer<typeof SIGNUP_RECEIVED>;
