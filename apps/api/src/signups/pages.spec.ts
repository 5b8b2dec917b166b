import { translator } from '@app/shared';
import { confirmPage, friendsInWords } from './pages';

describe('friendsInWords', () => {
  const words = (credited: number, places: number, beingChecked: number, locale: 'en' | 'de' | 'fr' | 'es' = 'en') =>
    String(friendsInWords(translator(locale), { credited, places, beingChecked }));

  it('says nothing while no friend has confirmed', () => {
    expect(words(0, 0, 0)).toBe('');
  });

  it('counts friends, places and held credit, each in its number', () => {
    expect(words(3, 3, 1)).toBe('<p>3 friends moved you up 3 places; 1 is still being checked.</p>');
    expect(words(1, 2, 0)).toBe('<p>1 friend moved you up 2 places.</p>');
    expect(words(0, 0, 2)).toBe('<p>2 friends are still being checked.</p>');
    expect(words(2, 2, 2)).toBe('<p>2 friends moved you up 2 places; 2 are still being checked.</p>');
  });

  it('says the friends joined when a referral gives no places', () => {
    expect(words(2, 0, 0)).toBe('<p>2 friends joined through your link.</p>');
  });

  it('counts in the entry language, by its plural rules', () => {
    expect(words(1, 1, 2, 'de')).toBe('<p>1 Person hat Sie um 1 Platz nach vorn gebracht; 2 werden noch geprüft.</p>');
    expect(words(0, 0, 1, 'fr')).toBe('<p>1 ami est encore en cours de vérification.</p>');
    expect(words(2, 0, 0, 'es')).toBe('<p>2 amigos se han unido a través de tu enlace.</p>');
  });
});

describe('confirmPage', () => {
  const confirmed = {
    state: 'confirmed' as const,
    productName: 'Acme',
    place: 4,
    estimatedWaitDays: 3,
    referralLink: null,
    friends: { credited: 0, places: 0, beingChecked: 0 },
    leaderboard: null,
    milestones: [],
    myDataLink: null,
  };

  it('is in the entry language, says so in <html lang>, and offers the others', () => {
    const page = confirmPage(translator('de'), { ...confirmed, locale: 'de' }, 'tok/en');
    expect(page).toContain('<html lang="de">');
    expect(page).toContain('<h1>Sie stehen auf der Warteliste von Acme</h1>');
    expect(page).toContain('Geschätzte Wartezeit: etwa 3 Tage');
    expect(page).toContain('action="/confirm/tok%2Fen/language"');
    expect(page).toContain('<option value="de" lang="de" selected>Deutsch</option>');
    expect(page).toContain('<option value="fr" lang="fr">Français</option>');
  });

  it('reads in English as it always did', () => {
    const page = confirmPage(translator('en'), { ...confirmed, locale: 'en', estimatedWaitDays: 1 }, 't');
    expect(page).toContain('<html lang="en">');
    expect(page).toContain("<title>You&#39;re on the list</title>");
    expect(page).toContain("<h1>You're on the Acme waitlist</h1>\n<p>Your place in line:</p><p class=\"place\">#4</p>\n<p class=\"muted\">Estimated wait: about a day</p>");
  });
});
