import { translator } from '@app/shared';
import { confirmationMail } from './confirmation';
import { invitationMail, invitationReminderMail } from './invitation';
import { MailLinks } from './layout';
import { myDataMail } from './my-data';

const DAY = 86_400_000;
const [en, de, fr, es] = (['en', 'de', 'fr', 'es'] as const).map(translator);
/** A mail's foot without a my-data page (a product with no publishable key in use), as the mails read before it came. */
const u: MailLinks = { unsubscribe: 'https://u', myData: null };
const links: MailLinks = { unsubscribe: 'https://u', myData: 'https://w.example/w/pk_test_1/my-data' };

describe('mails', () => {
  it('escape what a product or a link brings into their HTML, through the same template as the pages', () => {
    const mail = invitationMail(en, '<b>Acme</b> & co', 'https://acme.example/?invite=a"b', { unsubscribe: 'https://w.example/unsubscribe/t', myData: null }, 30 * DAY);
    expect(mail.html).toContain('&lt;b&gt;Acme&lt;/b&gt; &amp; co');
    expect(mail.html).toContain('href="https://acme.example/?invite=a&quot;b"');
    expect(mail.html).not.toContain('<b>Acme</b>');
    expect(mail.text).toContain('<b>Acme</b> & co');
  });

  it('say how long an unconfirmed address stays and how long a code works, as configured', () => {
    expect(confirmationMail(en, 'Acme', 'https://c', u, 3 * DAY).text).toContain('removed in 3 days');
    expect(invitationMail(en, 'Acme', 'https://i', u, 12 * 3_600_000).html).toContain('works for 12 hours');
  });

  it('are in English word for word as before the languages came', () => {
    const mail = confirmationMail(en, 'Acme', 'https://c', u, DAY);
    expect(mail.subject).toBe('Confirm your address for the Acme waitlist');
    expect(mail.text).toBe(`You asked to join the Acme waitlist. Confirm your address to take your place in line:

https://c

If this was not you, ignore this mail: without confirmation the address is removed in 1 day.

Unsubscribe: https://u
`);
    expect(mail.html).toContain("<p>You asked to join the <strong>Acme</strong> waitlist. Confirm your address to take your place in line.</p>");
    expect(mail.html).toContain('style="color:#59636e">Unsubscribe</a>');
    expect(invitationReminderMail(en, 'Acme', 'https://i', u, DAY).subject).toBe("Reminder: you're invited to Acme");
  });

  it('speak the entry language, durations declined and counted in it', () => {
    const mail = confirmationMail(de, 'Acme', 'https://c', u, 3 * DAY);
    expect(mail.subject).toBe('Bestätigen Sie Ihre Adresse für die Warteliste von Acme');
    expect(mail.text).toContain('Ohne Bestätigung wird die Adresse in 3 Tagen entfernt.');
    expect(mail.html).toContain('>Abmelden</a>');
    expect(invitationMail(de, 'Acme', 'https://i', u, DAY).text).toContain('funktioniert 1 Tag lang');
    expect(invitationReminderMail(fr, 'Acme', 'https://i', u, 2 * 3_600_000).text).toContain('expire dans 2 heures');
    expect(invitationMail(es, 'Acme', 'https://i', u, 30 * DAY).subject).toBe('Estás invitado a Acme');
  });

  it("link every mail to the product's my-data page, in the HTML and the text part, in the entry's language", () => {
    const mails = [
      confirmationMail(en, 'Acme', 'https://c', links, 3 * DAY),
      invitationMail(en, 'Acme', 'https://i', links, 3 * DAY),
      invitationReminderMail(en, 'Acme', 'https://i', links, DAY),
      myDataMail(en, 'Acme', 'https://d', links, 3_600_000),
    ];
    for (const mail of mails) {
      expect(mail.text).toContain('See or delete your data: https://w.example/w/pk_test_1/my-data');
      expect(mail.html).toContain('href="https://w.example/w/pk_test_1/my-data"');
    }
    expect(myDataMail(de, 'Acme', 'https://d', links, 3_600_000).text).toContain('Ihre Daten ansehen oder löschen: https://w.example/w/pk_test_1/my-data');
  });
});
