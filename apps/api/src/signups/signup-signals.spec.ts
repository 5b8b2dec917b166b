import { refusalOf } from './signup-signals';

describe(refusalOf.name, () => {
  const now = new Date('2026-11-27T12:00:10Z');
  const shown = (secondsAgo: number) => new Date(now.getTime() - secondsAgo * 1000);
  const on = { signupHoneypot: true, signupMinFillSeconds: 5 };
  const off = { signupHoneypot: false, signupMinFillSeconds: 0 };

  it('drops a filled honeypot, an early sign-up and a token the service did not sign, while on', () => {
    expect(refusalOf(on, 'http://spam.example', shown(60), now)).toBe('honeypot');
    expect(refusalOf(on, ['a', 'b'], undefined, now)).toBe('honeypot');
    expect(refusalOf(on, '', shown(4.999), now)).toBe('fill_time');
    expect(refusalOf(on, '', shown(-1), now)).toBe('fill_time');
    expect(refusalOf(on, undefined, null, now)).toBe('fill_time');
  });

  it('lets a person through: the honeypot empty, the form shown long enough ago, or no token (a server)', () => {
    for (const honeypot of [undefined, null, '']) expect(refusalOf(on, honeypot, shown(5), now)).toBeNull();
    expect(refusalOf(on, undefined, undefined, now)).toBeNull();
  });

  it('drops nothing while off, whatever the sign-up brings', () => {
    expect(refusalOf(off, 'http://spam.example', null, now)).toBeNull();
    expect(refusalOf({ signupHoneypot: true, signupMinFillSeconds: 0 }, '', null, now)).toBeNull();
    expect(refusalOf({ signupHoneypot: false, signupMinFillSeconds: 5 }, 'filled', shown(60), now)).toBeNull();
  });
});
