import { canonicalEmail, normalizeEmail } from './email';

describe(normalizeEmail.name, () => {
  it('trims and lowercases', () => expect(normalizeEmail('  Ada.Lovelace+list@Example.COM ')).toBe('ada.lovelace+list@example.com'));

  it('trims line breaks around the address too', () => expect(normalizeEmail('a@b.com\n')).toBe('a@b.com'));

  it.each([undefined, null, 42, {}, '', 'plain', 'a@', '@b.com', 'a b@c.com', 'a@b', `${'x'.repeat(250)}@example.com`])(
    'refuses %p',
    (input) => expect(normalizeEmail(input)).toBeNull(),
  );
});

describe(canonicalEmail.name, () => {
  it.each([
    ['flood@x.example', 'flood@x.example'],
    ['flood+r1@x.example', 'flood@x.example'],
    ['flood+r1+r2@x.example', 'flood@x.example'],
    ['flood+@x.example', 'flood@x.example'],
    // Dots count at most providers: another mailbox.
    ['f.l.o.o.d@x.example', 'f.l.o.o.d@x.example'],
    ['f.l.o.o.d+r3@x.example', 'f.l.o.o.d@x.example'],
    // Gmail ignores dots, and googlemail.com is the same mailbox as gmail.com.
    ['f.l.o.o.d@gmail.com', 'flood@gmail.com'],
    ['fl.ood+r2@googlemail.com', 'flood@gmail.com'],
    ['flood@googlemail.com', 'flood@gmail.com'],
    // Only those domains, not their look-alikes or subdomains.
    ['f.lood@mail.gmail.com', 'f.lood@mail.gmail.com'],
    ['f.lood@notgmail.com', 'f.lood@notgmail.com'],
    // A local part that is all tag keeps it: there is nothing else to tell it apart.
    ['+r1@x.example', '+r1@x.example'],
  ])('%s → %s', (email, canonical) => expect(canonicalEmail(email)).toBe(canonical));
});
