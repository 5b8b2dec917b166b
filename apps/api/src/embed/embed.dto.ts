import { CHALLENGE_MODES, isStorableText, LOCALES, QUESTION_TYPES } from '@app/shared';
import { z } from 'zod';
import { LEADER } from '../leaderboard/leaderboard.dto';
import { WATCH } from '../signups/signups.dto';

/** POST /public/v1/signups/status: the script-tag form asks whether its sign-up was confirmed. */
export const SIGNUP_STATUS_QUERY = z.object({
  key: z.string().max(200).refine(isStorableText).catch('').meta({ description: "The product's publishable key.", example: 'pk_live_…' }),
  watch: WATCH.meta({ description: 'The watch the sign-up was sent with.' }),
});

/**
 * Where the watched sign-up stands: `pending` until its address is confirmed (and for a watch the
 * service does not know, so that the answer tells nothing about an address), then the place.
 */
export const SIGNUP_STATUS = z
  .object({
    state: z.enum(['pending', 'confirmed', 'invited']),
    place: z.number().int().min(1).optional(),
    estimatedWaitDays: z.number().int().nullable().optional(),
    referralLink: z.string().nullable().optional(),
    leaderboard: z.array(LEADER).nullable().optional(),
    words: z.object({ wait: z.string(), friends: z.string() }).optional().meta({ description: 'The estimated wait and what friends did, in words for the page.' }),
  })
  .meta({ id: 'SignupStatus' });
export type SignupStatus = z.infer<typeof SIGNUP_STATUS>;

/** GET /public/v1/forms/{key}: what the script-tag form shows, in the person's language. */
export const EMBED_FORM = z
  .object({
    title: z.string(),
    locale: z.enum(LOCALES).meta({ description: 'The language of the words, sent on with the sign-up: the browser\'s Accept-Language if the service speaks it, else the product\'s default language.' }),
    questions: z
      .array(
        z.object({
          key: z.string(),
          type: z.enum(QUESTION_TYPES),
          required: z.boolean(),
          label: z.string().meta({ description: "In the form's language where the team gave it words of that language, else its default words." }),
          choices: z.array(z.string()).optional().meta({ description: 'The choices as an answer names them.' }),
          choiceLabels: z
            .array(z.string())
            .optional()
            .meta({ description: "Only where the team gave the choices words in the form's language: what to show for each choice, in the choices' order; the answer is still the choice." }),
        }),
      )
      .meta({ description: "The product's sign-up questions, in order, in the team's own words; the form sends their answers as `answers` by key." }),
    messages: z.record(z.string(), z.string()),
    formToken: z
      .string()
      .optional()
      .meta({ description: "Only while the product has a minimum fill time: when these words were given, signed; the form sends it back as the sign-up's formToken." }),
    honeypot: z
      .literal(true)
      .optional()
      .meta({ description: "Only while the product's honeypot is on: the form carries a field hidden from people and sends its value as the sign-up's website." }),
    challenge: z
      .enum(CHALLENGE_MODES)
      .meta({ description: "The product's sign-up challenge: off, or invisible or required, when the form solves one from GET /public/v1/challenge and sends its solution with the sign-up (required: shown as a step)." }),
  })
  .meta({ id: 'EmbedForm' });
export type EmbedForm = z.infer<typeof EMBED_FORM>;
