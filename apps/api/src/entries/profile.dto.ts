import { LOCALES } from '@app/shared';
import { z } from 'zod';

/** What is known about the person behind an entry, beside the Entry object's own fields. */
export const ENTRY_PROFILE = z
  .object({
    id: z.string().meta({ description: "The entry's id.", example: 'ent_8f3a2c1e9b7d4f6a0c5e2b19' }),
    locale: z.enum(LOCALES).meta({
      description: "The language of the person's mails and hosted pages: chosen at sign-up (the locale field, the hosted form's Accept-Language, or the product's default) and changed on the status page.",
      example: 'de',
    }),
  })
  .meta({ id: 'EntryProfile' });
export type EntryProfile = z.infer<typeof ENTRY_PROFILE>;
