import { maskedEmail } from './masked-email';

describe(maskedEmail.name, () => {
  it('keeps the first letter of the local part and of the domain, and the top-level domain', () => {
    expect(maskedEmail('jane.doe@gmail.com')).toBe('j•••@g•••.com');
    expect(maskedEmail('bob@mail.example.co.uk')).toBe('b•••@m•••.uk');
  });

  it('shows no length: a long and a short address mask alike', () => {
    expect(maskedEmail('a@b.io')).toBe(maskedEmail('alexandra.longname+tag@bigcompany.io'));
  });

  it('never shows more than those two letters and the top-level domain', () => {
    for (const email of ['ada.lovelace@example.org', 'x+secret@sub.domain.net', 'émile@école.fr']) {
      const masked = maskedEmail(email);
      const [local, domain] = email.split('@');
      expect(masked).not.toContain(local.slice(1, 3));
      expect(masked).not.toContain(domain.split('.')[0].slice(1));
      expect(masked).toMatch(/^.•••@.•••\.[a-z]+$/u);
    }
  });

  it('a domain without a dot shows no top-level domain', () => {
    expect(maskedEmail('root@localhost')).toBe('r•••@l•••');
  });
});
