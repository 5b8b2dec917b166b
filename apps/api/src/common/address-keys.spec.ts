import { AddressKeys } from './address-keys';

describe(AddressKeys.name, () => {
  const ring = [Buffer.alloc(32, 1), Buffer.alloc(32, 2)];

  it('names an address alike in every process with the same first key, and without the address', () => {
    const key = new AddressKeys(ring).of('alice@example.com');
    expect(new AddressKeys([ring[0]]).of('alice@example.com')).toBe(key);
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(key).not.toContain('alice');
  });

  it('names other addresses, and the same address under another first key, otherwise', () => {
    const keys = new AddressKeys(ring);
    expect(keys.of('bob@example.com')).not.toBe(keys.of('alice@example.com'));
    expect(new AddressKeys([ring[1], ring[0]]).of('alice@example.com')).not.toBe(keys.of('alice@example.com'));
  });
});
