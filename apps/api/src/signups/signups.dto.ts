import { isLocale, isStorableText, Locale, LOCALES } from '@app/shared';
import { z } from 'zod';
import { ownTextRule } from '../common/validation';

/**
 * A language tag whose language the service speaks ("de", "de-AT", "fr-CA"), as that language; the
 * region is not kept, as pages and mails are written per language.
 */
export const LOCALE_TAG = z
  .string()
  .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/, 'expected a language tag such as "de" or "de-AT"')
  .transform((tag) => tag.split('-')[0].toLowerCase())
  .refine(isLocale, `expected one of the languages ${LOCALES.join(', ')}, alone or with a region`)
  .transform((language) => language as Locale);

/** A page's random secret for asking later whether its sign-up was confirmed (the script-tag form's). */
export const WATCH = z.string().regex(/^[\w-]{22,64}$/, 'expected 22 to 64 characters of A-Z, a-z, 0-9, _ and -');

/** The public sign-up, as JSON or as an HTML form's fields. */
export const SIGNUP = z.object({
  // A missing or malformed key (text PostgreSQL cannot store included) is an unknown key: 401, like any other.
  key: z.string().max(200).refine(isStorableText).catch('').meta({ description: "The product's publishable key (pk_live_… or pk_test_…).", example: 'pk_live_…' }),
  // A missing or non-string address, or one PostgreSQL cannot store, reads as '': invalid_email like any other bad one.
  email: z.string().refine(isStorableText).catch('').meta({ description: 'The address to put on the list.', example: 'ada@example.com' }),
  // Any ref is taken, a string or not; what cannot be a referralCode (over 100 characters, text that
  // PostgreSQL cannot store, not a string) is ignored like an unknown one. Read as unknown, so that the
  // document does not promise a refusal the service does not give.
  ref: z
    .unknown()
    .meta({
      type: 'string',
      description: 'The referralCode of the link the person came through (12 characters); an unknown one, or one over 100 characters, is ignored.',
      example: 'k7m3x9q2w4zr',
    })
    .optional()
    .transform((ref) => (typeof ref === 'string' && ref.length <= 100 && isStorableText(ref) ? ref : undefined)),
  locale: LOCALE_TAG.optional().meta({
    description:
      "The person's language for its mails and pages: a language tag whose language the service speaks (en, de, fr, es; a region such as de-AT is taken as its language). Without it, a sign-up through the hosted form takes the browser's Accept-Language, and otherwise the product's default language. An address already on the list keeps its language.",
    example: 'de',
  }),
  watch: WATCH.optional()
    .meta({
      description:
        'A random secret of the page that signs up (the script-tag form sends one), with which it may ask POST /public/v1/signups/status for 30 minutes whether the address was confirmed.',
      example: 'q3V9w2xZr8mN4bK7tY1pLc',
    }),
  // The forms' cheap bot signals (signup-signals.ts): read, never stored.
  website: z
    .unknown()
    .optional()
    .meta({
      type: 'string',
      description:
        "The forms' honeypot, a field hidden from people: leave it out or empty. While the product's honeypot is on, a sign-up that fills it is dropped: it gets the usual answer, and nothing is stored or mailed.",
    }),
  formToken: z
    .unknown()
    .optional()
    .meta({
      type: 'string',
      description:
        "The token of when the form was shown, which the hosted form and the script-tag form (GET /public/v1/forms/{key}) carry while the product has a minimum fill time. A sign-up that brings one sooner than that after the form was shown, or one the service did not sign for this product and mode, is dropped like a filled honeypot. A sign-up without one (a product's own server or form) is not timed.",
    }),
  // A malformed one (not a string, too long, text PostgreSQL cannot store) is no solution: challenge_failed
  // where the product's challenge is on, ignored where it is off, like any unknown field.
  challenge: z
    .string()
    .max(2000)
    .refine(isStorableText)
    .optional()
    .catch(undefined)
    .meta({
      description:
        "The solution of a challenge from GET /public/v1/challenge, as base64 of the JSON {algorithm, challenge, number, salt, signature} (ALTCHA's payload); the script-tag form and the hosted form send it themselves. Needed only where the product's sign-up challenge is on (invisible or required): missing, wrong, expired or used before is 400 challenge_failed. Ignored where it is off.",
      example: 'eyJhbGdvcml0aG0iOiJTSEEtMjU2Ii…',
    }),
  // Read and checked by the service against the product's questions (signup-details.ts), answers and
  // attribution alike with the text rule of their own; described here for the document.
  answers: ownTextRule(
    z
      .unknown()
      .meta({
        type: 'object',
        additionalProperties: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }, { type: 'boolean' }] },
        description:
          "Answers to the product's sign-up questions by question key: text for short_text (at most 200 characters) and long_text (2,000), one of the choices for single_choice, a list of them for multiple_choice, true or false for checkbox. An unknown key, a required question left out (or a required checkbox not true), a wrong type, an answer too long, text holding a NUL, a control character or a lone surrogate, or a choice not offered is 400 invalid_request naming answers.<key>. A product without questions takes none ({} or absent). From an HTML form: fields answers[key], a ticked checkbox with any value.",
        example: { role: 'Founder', consent: true },
      })
      .optional(),
  ),
  attribution: ownTextRule(
    z
      .unknown()
      .meta({
        type: 'object',
        properties: Object.fromEntries(['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content', 'referrer', 'landing_page'].map((field) => [field, { type: 'string' }])),
        description:
          "Where the person came from: utm_source, utm_medium, utm_campaign, utm_term, utm_content (each cut to 200 characters, counted as code points), referrer and landing_page (http(s) URLs of at most 2,000 characters, else left out). Anything else is ignored, never refused: control characters, NUL and lone surrogates are dropped from the values. Without it, the request's Referer is taken as the landing page and its UTM parameters are read from it. From an HTML form: fields of these names (the hosted form carries them).",
        example: { utm_source: 'newsletter', utm_campaign: 'launch' },
      })
      .optional(),
  ),
});

/** The same answer for every address, new or known, so that the endpoint tells nobody who is on a list. */
export const SIGNUP_RECEIVED = z.object({ status: z.literal('received') }).meta({ id: 'SignupReceived' });
export type SignupReceived = z.infer<typeof SIGNUP_RECEIVED>;

/**
 * The forms' cheap bot signals as the settings form and `products update` give them, as text: the
 * honeypot (off or on; left out: unchanged) and the minimum fill time in seconds ('' or 0: none).
 */
export const SIGNUP_SIGNALS_SETTINGS = z.object({
  signupHoneypot: z.preprocess(
    (value) => (value === '' ? undefined : value),
    z
      .enum(['off', 'on'], { message: 'The honeypot must be off or on' })
      .transform((value) => value === 'on')
      .optional(),
  ),
  signupMinFillSeconds: z
    .string()
    .trim()
    .refine((text) => text === '' || (/^\d{1,4}$/.test(text) && Number(text) <= 3600), 'The minimum fill time must be a whole number of seconds from 0 to 3600, or empty for none')
    .transform(Number),
});
