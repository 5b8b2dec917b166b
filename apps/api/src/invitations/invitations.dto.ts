import { normalizeEmail } from '@app/shared';
import { z } from 'zod';
import { ApiError } from '../common/api-error';
import { ownTextRule, wholeNumber } from '../common/validation';

const ENTRY_IDS = z.array(z.string()).meta({ example: ['ent_5f0c2a9e4b7d1c3a8e6f9b20'] });

/** invite-next's body; the dashboard's form is checked against it too. */
export const INVITE_NEXT = z.object({ count: wholeNumber(1, 1000).meta({ description: 'How many people from the front of the line.', example: 10 }) });

export const INVITE_NEXT_RESULT = z
  .object({
    invited: ENTRY_IDS.meta({ description: 'Ids of the entries invited, in line order.' }),
    failed: ENTRY_IDS.meta({ description: 'Ids whose mail could not be handed over, in line order; they keep their place.' }),
  })
  .meta({ id: 'InviteNextResult' });
export type InviteNextResult = z.infer<typeof INVITE_NEXT_RESULT>;

/** verify's and redeem's body. */
export const TOKEN = z.object({
  token: ownTextRule(
    z
      .string({ message: 'expected the invite code as a string' })
      .min(1)
      .max(512)
      .meta({ description: 'The invite query parameter the product received.', example: 'UL8jGQTF_RY-RaKPxkoQFJOB_es8LU5eDKfDIAkPmO0' }),
  ),
});

/** The invited check's address, in the body or the query. It knows one error: whatever is wrong with it is invalid_email. */
export const EMAIL_ONLY = z
  .object({
    // A missing or non-string address reads as '', so that it is invalid_email too.
    email: z
      .string()
      .catch('')
      .meta({ description: 'The address; case and surrounding spaces do not matter.', example: 'ada@example.com', param: { required: true } }),
  })
  .transform(({ email }) => {
    const normalized = normalizeEmail(email);
    if (!normalized) throw new ApiError('invalid_email', 'email must be a valid email address.', { param: 'email' });
    return normalized;
  });

export const INVITED_ANSWER = z
  .object({ invited: z.boolean().meta({ description: 'true once the entry was invited, and still after it redeemed.' }) })
  .meta({ id: 'InvitedAnswer' });
export type InvitedAnswer = z.infer<typeof INVITED_ANSWER>;

/** A valid code names its address; every kind of bad code (unknown, expired, redeemed, another product's) answers the same. */
export const CODE_CHECK = z
  .discriminatedUnion('valid', [
    z.object({ valid: z.literal(true), email: z.string().meta({ description: 'The invited address.', example: 'ada@example.com' }) }),
    z.object({ valid: z.literal(false) }),
  ])
  .meta({ id: 'CodeCheck', description: 'The answer of verify and redeem: a valid code names its address; an invalid one says nothing more.' });
export type CodeCheck = z.infer<typeof CODE_CHECK>;
