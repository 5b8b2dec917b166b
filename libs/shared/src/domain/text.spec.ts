import fc from 'fast-check';
import { cutText, isStorableText, storableText, textLength, unstorableTextAt } from './text';

/** Any UTF-16 text: lone surrogates included, as a JSON \u escape can carry them. */
const anyText = fc.string({ unit: fc.oneof(fc.constantFrom('\u0000', '\ud83d', '\ude00', '😀', '👩‍👩‍👧', '\u202e'), fc.string({ unit: 'binary', maxLength: 1 })) });

describe('text', () => {
  it('a NUL or a lone surrogate is unstorable; pairs, ZWJ sequences and RTL marks are text', () => {
    expect(['😀', '👩‍👩‍👧', 'שלום\u200f', 'a\u0001b'].map(isStorableText)).toEqual([true, true, true, true]);
    expect(['a\u0000', '\ud83d', 'x\ude00y', '😀'.slice(1)].map(isStorableText)).toEqual([false, false, false, false]);
  });

  it('storableText drops exactly the unstorable characters', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const kept = storableText(text);
        expect(isStorableText(kept)).toBe(true);
        if (isStorableText(text)) expect(kept).toBe(text);
      }),
      { seed: 38 },
    );
  });

  it('cutText keeps a prefix of at most max code points and never splits a pair', () => {
    fc.assert(
      fc.property(anyText, fc.nat(50), (text, max) => {
        const cut = cutText(storableText(text), max);
        expect(storableText(text).startsWith(cut)).toBe(true);
        expect(isStorableText(cut)).toBe(true);
        expect(textLength(cut)).toBe(Math.min(max, textLength(storableText(text))));
      }),
      { seed: 38 },
    );
    expect(cutText(`x${'😀'.repeat(250)}`, 200)).toBe(`x${'😀'.repeat(199)}`);
  });

  it('unstorableTextAt names the first field, in a key or a value, nested or not', () => {
    expect(unstorableTextAt({ name: 'Acme', questions: [{ label: 'ok' }, { label: 'a\u0000' }] })).toEqual(['questions', 1, 'label']);
    expect(unstorableTextAt({ ['k\ud800']: 1 })).toEqual(['k\ud800']);
    expect(unstorableTextAt('\ud800')).toEqual([]);
    expect(unstorableTextAt({ name: '😀', count: 3, paused: null })).toBeUndefined();
  });
});
