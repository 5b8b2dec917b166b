import { isLocale, Locale } from '@app/shared';

/**
 * The language of an entry's mails, for its product's template: the entry's `locale` once entries
 * keep one (entries.locale comes on its own branch; the confirmation's statement in MailSender and
 * the invitation's and reminder's entry rows then carry it), undefined until then, so that the
 * template for every language applies.
 */
export function entryLocale(entry: object): Locale | undefined {
  const locale = (entry as { locale?: unknown }).locale;
  return isLocale(locale) ? locale : undefined;
}
