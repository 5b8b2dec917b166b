import { MessageFormatElement, parse, TYPE } from '@formatjs/icu-messageformat-parser';
import { LOCALES } from './locales';
import { CATALOGUES } from './messages';

/** The arguments a message takes (name and kind), and whether each plural or select keeps an `other`. */
function argumentsOf(elements: MessageFormatElement[], found = new Set<string>(), problems: string[] = []): { found: Set<string>; problems: string[] } {
  for (const element of elements) {
    if (element.type === TYPE.argument) found.add(`${element.value}`);
    if (element.type === TYPE.number || element.type === TYPE.date || element.type === TYPE.time) found.add(`${element.value}:${TYPE[element.type]}`);
    if (element.type === TYPE.plural || element.type === TYPE.select) {
      found.add(`${element.value}:${element.type === TYPE.plural ? 'plural' : 'select'}`);
      if (!('other' in element.options)) problems.push(`${element.value} has no other branch`);
      for (const option of Object.values(element.options)) argumentsOf(option.value, found, problems);
    }
    if (element.type === TYPE.tag) argumentsOf(element.children, found, problems);
  }
  return { found, problems };
}

const shape = (message: string) => {
  const { found, problems } = argumentsOf(parse(message));
  return { args: [...found].sort(), problems };
};

describe('the catalogues', () => {
  const english = CATALOGUES.en;

  it.each(LOCALES.filter((locale) => locale !== 'en'))('%s has every English message and no other', (locale) => {
    expect(Object.keys(CATALOGUES[locale]).sort()).toEqual(Object.keys(english).sort());
  });

  it.each(LOCALES)('%s: every message parses, keeps the English placeholders and an other branch in each plural and select', (locale) => {
    for (const [id, message] of Object.entries(CATALOGUES[locale])) {
      const { args, problems } = shape(message);
      expect({ id, problems }).toEqual({ id, problems: [] });
      expect({ id, args }).toEqual({ id, args: shape(english[id as keyof typeof english]).args });
    }
  });

  it('no translation is left in English', () => {
    for (const locale of LOCALES.filter((locale) => locale !== 'en')) {
      const same = Object.entries(CATALOGUES[locale]).filter(([id, message]) => message === english[id as keyof typeof english] && !id.startsWith('duration'));
      expect({ locale, same }).toEqual({ locale, same: [] });
    }
  });
});
