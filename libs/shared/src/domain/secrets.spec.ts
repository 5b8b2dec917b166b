import { hashToken, hashTokenHex, newId, newReferralCode, newToken, sameSecret } from './secrets';

describe('secrets', () => {
  it('tokens carry 256 random bits, URL-safe, with an optional prefix', () => {
    const token = newToken('sk_live_');
    expect(token).toMatch(/^sk_live_[A-Za-z0-9_-]{43}$/);
    expect(newToken()).not.toBe(newToken());
  });

  it('sameSecret is true only for the very secret, whatever the lengths', () => {
    expect(sameSecret('user:s3cret', 'user:s3cret')).toBe(true);
    expect(sameSecret('user:s3cre', 'user:s3cret')).toBe(false);
    expect(sameSecret('', 'user:s3cret')).toBe(false);
  });

  it('hashes are SHA-256 of the whole token', () => {
    expect(hashToken('abc').toString('hex')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(hashTokenHex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('ids are prefixed', () => expect(newId('ent')).toMatch(/^ent_[0-9a-f]{24}$/));

  it('referral codes are 12 readable characters', () => {
    const codes = new Set(Array.from({ length: 1000 }, newReferralCode));
    expect(codes.size).toBe(1000);
    for (const code of codes) expect(code).toMatch(/^[a-km-np-z2-9]{12}$/);
  });
});
