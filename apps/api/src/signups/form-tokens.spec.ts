import { FormTokens } from './form-tokens';

describe(FormTokens.name, () => {
  const ring = [Buffer.alloc(32, 1), Buffer.alloc(32, 2)];
  const scope = { productId: 'prod_1', mode: 'live' as const };
  const shown = new Date('2026-11-27T12:00:00.123Z');

  it('gives back the time a form was shown, in any process with the same ring', () => {
    const token = new FormTokens(ring).issue(scope, shown);
    expect(token).toMatch(/^[0-9a-z]+\.[A-Za-z0-9_-]{22}$/);
    expect(new FormTokens(ring).shownAt(scope, token)).toEqual(shown);
  });

  it('checks under every key of the ring, so a form shown before a rotation still counts', () => {
    const before = new FormTokens([ring[1]]).issue(scope, shown);
    expect(new FormTokens(ring).shownAt(scope, before)).toEqual(shown);
    expect(new FormTokens([ring[0]]).shownAt(scope, before)).toBeNull();
  });

  it('knows no token of another product or mode, with another time, or not of its form', () => {
    const tokens = new FormTokens(ring);
    const token = tokens.issue(scope, shown);
    expect(tokens.shownAt({ productId: 'prod_2', mode: 'live' }, token)).toBeNull();
    expect(tokens.shownAt({ ...scope, mode: 'test' }, token)).toBeNull();
    const [, mac] = token.split('.');
    expect(tokens.shownAt(scope, `${(shown.getTime() - 60_000).toString(36)}.${mac}`)).toBeNull();
    for (const forged of ['', 'x', `${token}x`, token.replace('.', ''), `-1.${mac}`, `${'z'.repeat(12)}.${mac}`]) expect(tokens.shownAt(scope, forged)).toBeNull();
  });
});
