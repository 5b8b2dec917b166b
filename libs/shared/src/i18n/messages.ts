import { createIntl, createIntlCache, IntlShape } from '@formatjs/intl';
import { durationParts } from '../config/durations';
import { escapeHtml, SafeHtml } from '../domain/html';
import de from './catalogues/de.json';
import en from './catalogues/en.json';
import es from './catalogues/es.json';
import fr from './catalogues/fr.json';
import type { Locale } from './locales';

export type MessageId = keyof typeof en;
export type Catalogue = Record<MessageId, string>;
type Value = string | number | Date;

/** Every language's ICU messages; catalogues.spec.ts holds them to the English ids and placeholders. */
export const CATALOGUES: Record<Locale, Catalogue> = { en, de, fr, es };

/** Each language in its own words, as a language switch offers it. */
export const LANGUAGE_NAMES: Record<Locale, string> = { en: 'English', de: 'Deutsch', fr: 'Français', es: 'Español' };

/** A language's messages, durations and dates, for the hosted pages and the default mails. */
export interface Translator {
  readonly locale: Locale;
  /** A message as plain text (mail text, subjects, page titles before escaping). */
  text(id: MessageId, values?: Record<string, Value>): string;
  /** A message as HTML: the catalogue's words are ours, every value is escaped unless it is SafeHtml. */
  html(id: MessageId, values?: Record<string, Value | SafeHtml>): SafeHtml;
  /** A duration in words: `for` after "works for", `in` after "removed in" (German declines it). */
  duration(ms: number, use: 'for' | 'in'): string;
  /** A moment as the language writes it, in UTC (docs/decisions/languages.md: times in UTC). */
  dateTime(value: Date): string;
}

const cache = createIntlCache();
const translators = new Map<Locale, Translator>();

/** The translator of a language, made once per process. */
export function translator(locale: Locale): Translator {
  let found = translators.get(locale);
  if (!found) translators.set(locale, (found = makeTranslator(locale)));
  return found;
}

function makeTranslator(locale: Locale): Translator {
  // A message missing or a value forgotten is a bug that the catalogue test or the caller's test catches.
  const intl: IntlShape<string> = createIntl({ locale, defaultLocale: 'en', messages: CATALOGUES[locale], timeZone: 'UTC', onError: (error) => { throw error; } }, cache);
  // Each message compiled once: formatMessage keys its own memo by serialising the formats, which
  // cost a mail ~0.3 ms of CPU (the sign-up benchmark's mailer profile).
  const formats = new Map<MessageId, ReturnType<IntlShape['formatters']['getMessageFormat']>>();
  const text = (id: MessageId, values?: Record<string, Value>): string => {
    let format = formats.get(id);
    if (!format) {
      if (!Object.hasOwn(CATALOGUES[locale], id)) throw new Error(`No message ${id} in ${locale}`);
      formats.set(id, (format = intl.formatters.getMessageFormat(CATALOGUES[locale][id], locale, intl.formats, { formatters: intl.formatters })));
    }
    return format.format(values) as string;
  };
  return {
    locale,
    text,
    html: (id, values = {}) =>
      new SafeHtml(
        text(
          id,
          Object.fromEntries(Object.entries(values).map(([name, value]) => [name, value instanceof SafeHtml ? value.value : typeof value === 'string' ? escapeHtml(value) : value])),
        ),
      ),
    duration: (ms, use) => text(use === 'for' ? 'duration.for' : 'duration.in', durationParts(ms)),
    // English keeps the service's own form (2026-11-25 20:00 UTC), which its pages always showed.
    dateTime: (value) =>
      locale === 'en'
        ? `${value.toISOString().slice(0, 16).replace('T', ' ')} UTC`
        : `${intl.formatDate(value, { dateStyle: 'long', timeStyle: 'short' })} UTC`,
  };
}

