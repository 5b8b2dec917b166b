import { translator } from '@app/shared';
import { confirmationMail } from './confirmation';
import { invitationMail, invitationReminderMail } from './invitation';

const DAY = 86_400_000;
const [en, de, fr, es] = (['en', 'de', 'fr', 'es'] as const).map(translator);

describe('mails', () => {
  it('escape what a product or a link brings into their HTML, through the same template as the pages', () => {
    const mail = invitationMail(en, '<b>Acme</b> & co', 'https://acme.example/?invite=a"b', 'https://w.example/unsubscribe/t', 30 * DAY);
    expect(mail.html).toContain('&lt;b&gt;Acme&lt;/b&gt; &amp; co');
    expect(mail.html).toContain('href="https://acme.example/?invite=a&quot;b"');
    expect(mail.html).not.toContain('<b>Acme</b>');
    expect(mail.text).toContain('<b>Acme</b> & co');
  });

  it('say how long an unconfirmed address stays and how long a code works, as configured', () => {
    expect(confirmationMail(en, 'Acme', 'https://c', 'https://u', 3 * DAY).text).toContain('removed in 3 days');
    expect(invitationMail(en, 'Acme', 'https://i', 'https://u', 12 * 3_600_000).html).toContain('works for 12 hours');
  });

  it('are in English word for word as before the languages came', () => {
    const mail = confirmationMail(en, 'Acme', 'https://c', 'https://u', DAY);
    expect(mail.subject).toBe('Confirm your address for the Acme waitlist');
    expect(mail.text).toBe(`You asked to join the Acme waitlist. Confirm your address to take your place in line:

https://c

If this was not you, ignore this mail: without confirmation the address is removed in 1 day.

Unsubscribe: https://u
`);
    expect(mail.html).toContain("<p>You asked to join the <strong>Acme</strong> waitlist. Confirm your address to take your place in line.</p>");
    expect(mail.html).toContain('style="color:#59636e">Unsubscribe</a>');
    expect(invitationReminderMail(en, 'Acme', 'https://i', 'https://u', DAY).subject).toBe("Reminder: you're invited to Acme");
  });

  it('speak the entry language, durations declined and counted in it', () => {
    const mail = confirmationMail(de, 'Acme', 'https://c', 'https://u', 3 * DAY);
    expect(mail.subject).toBe('Bestätigen Sie Ihre Adresse für die Warteliste von Acme');
    expect(mail.text).toContain('Ohne Bestätigung wird die Adresse in 3 Tagen entfernt.');
    expect(mail.html).toContain('>Abmelden</a>');
    expect(invitationMail(de, 'Acme', 'https://i', 'https://u', DAY).text).toContain('funktioniert 1 Tag lang');
    expect(invitationReminderMail(fr, 'Acme', 'https://i', 'https://u', 2 * 3_600_000).text).toContain('expire dans 2 heures');
    expect(invitationMail(es, 'Acme', 'https://i', 'https://u', 30 * DAY).subject).toBe('Estás invitado a Acme');
  });
});
