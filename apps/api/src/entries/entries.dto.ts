import { ENTRY, ENTRY_STATES, normalizeEmail } from '@app/shared';
import { z } from 'zod';
import { ApiError } from '../common/api-error';
import { queryWholeNumber, single } from '../common/validation';

/** The list's query parameters; the dashboard's entries list reads its filters with it too. */
export const LIST_QUERY = z.object({
  state: z
    .enum(ENTRY_STATES, { message: 'expected pending, confirmed, invited or redeemed' })
    .optional()
    .meta({ description: 'Only entries in this state.' }),
  email: single
    .transform((text) => {
      const email = normalizeEmail(text);
      if (!email) throw new ApiError('invalid_email', 'The email query parameter is not a valid email address.', { param: 'email' });
      return email;
    })
    .optional()
    .meta({ description: 'Only the entry of this address (trimmed and lowercased first): the page holds it or nothing.', example: 'ada@example.com' }),
  limit: queryWholeNumber(1, 100, 20).meta({ description: 'Entries per page.' }),
  // Any cursor the API did not issue, however long, is invalid_cursor (the codec checks its HMAC).
  cursor: single.optional().meta({ description: 'nextCursor of the previous page, with the same filters.' }),
});

/** A page of a list, newest first, named `id` in the OpenAPI document. */
export const listPage = <T extends z.ZodType>(item: T, id: string, description: string) =>
  z
    .object({
      data: z.array(item),
      nextCursor: z.string().nullable().meta({ description: 'Pass it as cursor for the next page; null on the last page.' }),
    })
    .meta({ id, description });

/** The query of a list of an entry's own (its referrals, its history): a page at a time. */
export const ENTRY_LIST_QUERY = z.object({
  limit: queryWholeNumber(1, 100, 50).meta({ description: 'Items per page.' }),
  cursor: single.optional().meta({ description: 'nextCursor of the previous page.' }),
});
export type EntryListQuery = z.infer<typeof ENTRY_LIST_QUERY>;

/** A page of entries, newest first. */
export const ENTRY_PAGE = listPage(ENTRY, 'EntryPage', 'A page of entries, newest first.');
export type EntryPage = z.infer<typeof ENTRY_PAGE>;

/** The entry id in a route's path. */
export const ENTRY_ID = z.object({ id: z.string().meta({ description: 'Id of the entry.', example: 'ent_5f0c2a9e4b7d1c3a8e6f9b20' }) });
