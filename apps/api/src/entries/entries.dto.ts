import { ENTRY_STATES, normalizeEmail } from '@app/shared';
import { z } from 'zod';
import { ApiError } from '../common/api-error';
import { single, wholeNumber } from '../common/validation';

/** The list's query parameters; the dashboard's entries list reads its filters with it too. */
export const LIST_QUERY = z.object({
  state: single.pipe(z.enum(ENTRY_STATES, { message: 'expected pending, confirmed, invited or redeemed' })).optional(),
  email: single
    .transform((text) => {
      const email = normalizeEmail(text);
      if (!email) throw new ApiError('invalid_email', 'The email query parameter is not a valid email address.', { param: 'email' });
      return email;
    })
    .optional(),
  limit: single
    .regex(/^\d{1,3}$/, 'expected a whole number from 1 to 100')
    .transform(Number)
    .pipe(wholeNumber(1, 100))
    .default(20),
  // Any cursor the API did not issue, however long, is invalid_cursor (the codec checks its HMAC).
  cursor: single.optional(),
});
