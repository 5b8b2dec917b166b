/**
 * Text from outside that the service keeps must be text PostgreSQL stores as it was sent: no NUL (text
 * cannot hold one, jsonb refuses its escape) and no lone surrogate (half of a character such as an
 * emoji: jsonb refuses it, text would keep U+FFFD instead). Such text is refused naming its field; a
 * sign-up's attribution drops the characters instead, as it drops any other bad one.
 */
export const UNSTORABLE_TEXT = 'cannot hold a NUL character or half of a character (a lone surrogate)';

// With the u flag a surrogate pair is one character, so \p{Cs} matches only a lone half.
const UNSTORABLE = /[\u0000\p{Cs}]/u;

export const isStorableText = (text: string): boolean => !UNSTORABLE.test(text);

/** The text without its NULs and lone surrogates. */
export const storableText = (text: string): string => text.replace(new RegExp(UNSTORABLE, 'gu'), '');

/** At most `max` characters, counted and cut by code points: never inside a surrogate pair. */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = 0;
  for (let points = 0; cut < text.length && points < max; points++) cut += text.codePointAt(cut)! > 0xffff ? 2 : 1;
  return text.slice(0, cut);
}

/** The length of text in code points, as cutText counts it. */
export function textLength(text: string): number {
  let length = 0;
  for (const _ of text) length++;
  return length;
}

/**
 * Where in a parsed body (JSON or form fields: objects, arrays, strings) the first unstorable text is,
 * in a key or a value, as the path of its field; undefined when there is none.
 */
export function unstorableTextAt(value: unknown, path: (string | number)[] = []): (string | number)[] | undefined {
  if (typeof value === 'string') return isStorableText(value) ? undefined : path;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const at = unstorableTextAt(item, [...path, index]);
      if (at) return at;
    }
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, item] of Object.entries(value)) {
    const at = isStorableText(key) ? unstorableTextAt(item, [...path, key]) : [...path, key];
    if (at) return at;
  }
  return undefined;
}
