import { isLocale, pickLocale } from './locales';

describe(pickLocale.name, () => {
  it.each([
    ['de', 'de'],
    ['de-AT,de;q=0.9,en;q=0.8', 'de'],
    ['ja, fr;q=0.5, en;q=0.7', 'en'],
    ['ES-mx', 'es'],
    ['en;q=0, fr', 'fr'],
    ['*', undefined],
    ['ja, zh', undefined],
    ['', undefined],
    [undefined, undefined],
    ['fr;q=oops, de;q=0.1', 'de'],
  ])('%p asks for %p', (header, locale) => expect(pickLocale(header)).toBe(locale));
});

describe(isLocale.name, () => {
  it.each(['en', 'de', 'fr', 'es'])('speaks %p', (tag) => expect(isLocale(tag)).toBe(true));
  it.each(['EN', 'de-DE', 'it', '', 1, null, {}])('does not speak %p', (tag) => expect(isLocale(tag)).toBe(false));
});
