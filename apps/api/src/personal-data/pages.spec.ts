import { translator } from '@app/shared';
import { dataPage, deleteAskPage } from './pages';

const entry = {
  id: 'ent_1',
  email: 'lena@example.com',
  state: 'confirmed' as const,
  createdAt: '2026-11-20T09:30:00.000Z',
  confirmedAt: '2026-11-20T09:35:00.000Z',
  invitedAt: null,
  redeemedAt: null,
  referralCode: 'k7m3x9q2w4zr',
  referrals: 2,
};

describe('my-data pages', () => {
  it("are in the entry's language, its dates and states too", () => {
    const page = dataPage(translator('de'), 'tok', 'Acme', entry);
    expect(page).toContain('<html lang="de">');
    expect(page).toContain('<h1>Ihre Daten auf der Warteliste von Acme</h1>');
    expect(page).toContain('Adresse: <strong>lena@example.com</strong>');
    expect(page).toContain('Stand: in der Warteschlange');
    expect(page).toContain('Angemeldet 20. November 2026 um 09:30 UTC; bestätigt 20. November 2026 um 09:35 UTC; eingeladen noch nicht;');
    expect(deleteAskPage(translator('fr'), 'tok', 'Acme')).toContain('<button class="danger" type="submit">Supprimer mes données</button>');
  });

  it("read in English with the service's own form of a time", () => {
    const page = dataPage(translator('en'), 'tok', 'Acme', entry);
    expect(page).toContain('<h1>Your data on the Acme waitlist</h1>\n<p>Address: <strong>lena@example.com</strong></p>');
    expect(page).toContain('Signed up 2026-11-20 09:30 UTC; confirmed 2026-11-20 09:35 UTC; invited not yet; invitation used not yet. Friends who joined through your link: 2.');
    expect(page).toContain('State: in line');
    expect(page).toContain('<a href="/my-data/tok/delete">Delete my data</a>');
  });
});
