import { hashPassword, verifyPassword } from './passwords';

describe(hashPassword.name, () => {
  it('verifies the right password only, with a fresh salt each time', async () => {
    const stored = await hashPassword('correct horse battery staple');
    expect(stored).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(stored).not.toContain('correct horse');
    expect(await verifyPassword('correct horse battery staple', stored)).toBe(true);
    expect(await verifyPassword('correct horse battery stapl', stored)).toBe(false);
    expect(await hashPassword('correct horse battery staple')).not.toBe(stored);
    expect(await verifyPassword('x', 'not-a-hash')).toBe(false);
  });
});
