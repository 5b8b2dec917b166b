import { normalizeEmail } from './email';

describe(normalizeEmail.name, () => {
  it('trims and lowercases', () => expect(normalizeEmail('  Ada.Lovelace+list@Example.COM ')).toBe('ada.lovelace+list@example.com'));

  it('trims line breaks around the address too', () => expect(normalizeEmail('a@b.com\n')).toBe('a@b.com'));

  it.each([undefined, null, 42, {}, '', 'plain', 'a@', '@b.com', 'a b@c.com', 'a@b', `${'x'.repeat(250)}@example.com`])(
    'refuses %p',
    (input) => expect(normalizeEmail(input)).toBeNull(),
  );
});
