import { z } from 'zod';

/** The public sign-up, as JSON or as an HTML form's fields. */
export const SIGNUP = z.object({
  // A missing or malformed key is an unknown key: 401, like any other.
  key: z.string().max(200).catch('').meta({ description: "The product's publishable key (pk_live_… or pk_test_…).", example: 'pk_live_…' }),
  // A missing or non-string address reads as '', so that it is invalid_email like any other bad one.
  email: z.string().catch('').meta({ description: 'The address to put on the list.', example: 'ada@example.com' }),
  // Any ref is taken, a string or not; what cannot be a referralCode (over 100 characters, a NUL that
  // PostgreSQL text cannot hold, not a string) is ignored like an unknown one. Read as unknown, so that the
  // document does not promise a refusal the service does not give.
  ref: z
    .unknown()
    .meta({
      type: 'string',
      description: 'The referralCode of the link the person came through (12 characters); an unknown one, or one over 100 characters, is ignored.',
      example: 'k7m3x9q2w4zr',
    })
    .optional()
    .transform((ref) => (typeof ref === 'string' && ref.length <= 100 && !ref.includes('\0') ? ref : undefined)),
  watch: z
    .string()
    .regex(/^[\w-]{22,64}$/, 'expected 22 to 64 characters of A-Z, a-z, 0-9, _ and -')
    .optional()
    .meta({
      description:
        'A random secret of the page that signs up (the script-tag form sends one), with which it may ask POST /public/v1/signups/status for 30 minutes whether the address was confirmed.',
      example: 'q3V9w2xZr8mN4bK7tY1pLc',
    }),
});

/** The same answer for every address, new or known, so that the endpoint tells nobody who is on a list. */
export const SIGNUP_RECEIVED = z.object({ status: z.literal('received') }).meta({ id: 'SignupReceived' });
export type SignupReceived = z.infer<typeof SIGNUP_RECEIVED>;
