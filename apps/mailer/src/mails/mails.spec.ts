import { describeDuration } from '@app/shared';
import { confirmationMail } from './confirmation';
import { invitationMail, invitationReminderMail } from './invitation';
import { MailLinks } from './layout';
import { myDataMail } from './my-data';

const links: MailLinks = { unsubscribe: 'https://u', myData: 'https://w.example/w/pk_test_1/my-data' };

describe('mails', () => {
  it('escape what a product or a link brings into their HTML, through the same template as the pages', () => {
    const mail = invitationMail('<b>Acme</b> & co', 'https://acme.example/?invite=a"b', { unsubscribe: 'https://w.example/unsubscribe/t', myData: null }, '30 days');
    expect(mail.html).toContain('&lt;b&gt;Acme&lt;/b&gt; &amp; co');
    expect(mail.html).toContain('href="https://acme.example/?invite=a&quot;b"');
    expect(mail.html).not.toContain('<b>Acme</b>');
    expect(mail.text).toContain('<b>Acme</b> & co');
  });

  it('say how long an unconfirmed address stays and how long a code works, as configured', () => {
    expect(confirmationMail('Acme', 'https://c', links, describeDuration(3 * 86_400_000)).text).toContain('removed in 3 days');
    expect(invitationMail('Acme', 'https://i', links, describeDuration(12 * 3_600_000)).html).toContain('works for 12 hours');
  });

  it("link every mail to the product's my-data page, in the HTML and the text part", () => {
    const mails = [
      confirmationMail('Acme', 'https://c', links, '3 days'),
      invitationMail('Acme', 'https://i', links, '3 days'),
      invitationReminderMail('Acme', 'https://i', links, '1 day'),
      myDataMail('Acme', 'https://d', links, '1 hour'),
    ];
    for (const mail of mails) {
      expect(mail.text).toContain('See or delete your data: https://w.example/w/pk_test_1/my-data');
      expect(mail.html).toContain('href="https://w.example/w/pk_test_1/my-data"');
    }
  });
});

describe(describeDuration.name, () => {
  it.each([
    [14 * 86_400_000, '14 days'],
    [86_400_000, '1 day'],
    [36 * 3_600_000, '36 hours'],
    [90 * 60_000, '90 minutes'],
    [60_000, '1 minute'],
    [1_500, '2 seconds'],
  ])('%d ms is %s', (ms, words) => expect(describeDuration(ms)).toBe(words));
});
