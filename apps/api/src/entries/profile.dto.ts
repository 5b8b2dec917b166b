import { ATTRIBUTION_FIELDS, LOCALES } from '@app/shared';
import { z } from 'zod';

const ANSWER = z.union([z.string(), z.array(z.string()), z.boolean()]);

/** The person behind an entry, beside the Entry object's own fields: its language, its answers to the product's questions and where its sign-up came from (GET /api/v1/entries/{id}/profile). */
export const ENTRY_PROFILE = z
  .object({
    id: z.string().meta({ description: 'Id of the entry.', example: 'ent_5f0c2a9e4b7d1c3a8e6f9b20' }),
    locale: z.enum(LOCALES).meta({
      description: "The language of the person's mails and hosted pages: chosen at sign-up (the locale field, the hosted form's Accept-Language, or the product's default) and changed on the status page.",
      example: 'de',
    }),
    answers: z.record(z.string(), ANSWER).meta({
      description:
        "The sign-up's answers by question key: text for short_text, long_text and single_choice, a list for multiple_choice, true or false for checkbox. Questions left unanswered are absent; {} when none.",
      example: { role: 'Founder', tools: ['Slack', 'Jira'], consent: true },
    }),
    attribution: z
      .object(Object.fromEntries(ATTRIBUTION_FIELDS.map((field) => [field, z.string().optional()])) as Record<(typeof ATTRIBUTION_FIELDS)[number], z.ZodOptional<z.ZodString>>)
      .meta({
        description:
          'Where the sign-up came from, as far as it is known: the UTM parameters, referrer (the page before the sign-up page) and landing_page (the sign-up page); {} when nothing is known.',
        example: { utm_source: 'newsletter', utm_campaign: 'launch', landing_page: 'https://acme.example/join?utm_source=newsletter&utm_campaign=launch' },
      }),
  })
  .meta({ id: 'EntryProfile', description: 'What is known of the person behind an entry: its language, its sign-up\'s answers and where it came from.' });
export type EntryProfile = z.infer<typeof ENTRY_PROFILE>;
