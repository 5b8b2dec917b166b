import { derivedKeys, hashToken, hashTokenHex, newId, newReferralCode, newToken, sameSecret, SigningRing } from './secrets';

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

  it('never gives the same random bytes twice, across the blocks they are cut from', () => {
    // Mixed sizes over many 4 KiB blocks: a byte given twice would show as a repeated 8-byte window.
    const made = Array.from({ length: 3000 }, (_, i) => (i % 3 === 0 ? newToken() : i % 3 === 1 ? newId('evt').slice(4) : newReferralCode()));
    expect(new Set(made).size).toBe(made.length);
    const bytes = made.filter((_, i) => i % 3 === 0).map((token) => Buffer.from(token, 'base64url'));
    const windows = new Set<string>();
    for (const token of bytes) for (let at = 0; at + 8 <= token.length; at += 8) windows.add(token.subarray(at, at + 8).toString('hex'));
    expect(windows.size).toBe(bytes.length * 4);
  });

  it('referral codes are 12 readable characters', () => {
    const codes = new Set(Array.from({ length: 1000 }, newReferralCode));
    expect(codes.size).toBe(1000);
    for (const code of codes) expect(code).toMatch(/^[a-km-np-z2-9]{12}$/);
  });

  describe(SigningRing.name, () => {
    const [old, current] = [Buffer.alloc(32, 1), Buffer.alloc(32, 2)];

    it('verifies what the first key signed, and what an older key of the ring signed, for its purpose only', () => {
      const before = new SigningRing([old], 'a purpose').sign('payload');
      const rotated = new SigningRing([current, old], 'a purpose');
      expect(rotated.verify('payload', before)).toBe(true);
      expect(rotated.verify('payload', rotated.sign('payload'))).toBe(true);
      expect(rotated.verify('another payload', before)).toBe(false);
      expect(new SigningRing([current, old], 'another purpose').verify('payload', before)).toBe(false);
      expect(new SigningRing([current], 'a purpose').verify('payload', before)).toBe(false);
    });

    it('keeps the bytes it is asked for, and refuses a signature of another length or spelling', () => {
      const ring = new SigningRing([current], 'a purpose', 16);
      const signature = ring.sign('payload');
      expect(signature).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(ring.verify('payload', signature.slice(0, -1))).toBe(false);
      expect(ring.verify('payload', `${signature}A`)).toBe(false);
      expect(ring.verify('payload', `${signature.slice(0, 10)}!${signature.slice(10)}`)).toBe(false);
      expect(ring.verify('payload', '')).toBe(false);
    });

    it('derives one key per key of the ring, different for each purpose', () => {
      const [a] = derivedKeys(current, 'a purpose');
      expect(a).toHaveLength(32);
      expect(a.equals(derivedKeys(current, 'another purpose')[0])).toBe(false);
      expect(derivedKeys([current, old], 'a purpose')).toHaveLength(2);
    });
  });
});
