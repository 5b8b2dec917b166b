import { html } from '../domain/html';
import { translator } from './messages';

describe('translator', () => {
  const [en, de, fr, es] = (['en', 'de', 'fr', 'es'] as const).map(translator);

  it('is made once per language', () => {
    expect(translator('de')).toBe(de);
  });

  it.each([
    [14 * 86_400_000, '14 days'],
    [86_400_000, '1 day'],
    [36 * 3_600_000, '36 hours'],
    [90 * 60_000, '90 minutes'],
    [60_000, '1 minute'],
    [1_500, '2 seconds'],
  ])('says %d ms in English as before: %s', (ms, words) => {
    expect(en.duration(ms, 'for')).toBe(words);
    expect(en.duration(ms, 'in')).toBe(words);
  });

  it('declines German durations after "in" and counts each language in its plurals', () => {
    expect(de.duration(3 * 86_400_000, 'in')).toBe('3 Tagen');
    expect(de.duration(3 * 86_400_000, 'for')).toBe('3 Tage');
    expect(de.duration(86_400_000, 'in')).toBe('1 Tag');
    expect(fr.duration(2 * 3_600_000, 'for')).toBe('2 heures');
    expect(es.duration(60_000, 'in')).toBe('1 minuto');
    expect(de.text('page.status.movedUp', { friends: 1, places: 2 })).toBe('1 Person hat Sie um 2 Plätze nach vorn gebracht');
    expect(de.text('page.status.leader', { email: 'a…@x', friends: 2 })).toBe('a…@x: 2 Personen');
  });

  it('writes numbers and dates the way the language does, in UTC', () => {
    const at = new Date('2026-12-03T17:05:00Z');
    expect(en.dateTime(at)).toBe('2026-12-03 17:05 UTC');
    expect(de.dateTime(at)).toBe('3. Dezember 2026 um 17:05 UTC');
    expect(fr.dateTime(at)).toBe('3 décembre 2026 à 17:05 UTC');
    expect(es.dateTime(at)).toBe('3 de diciembre de 2026 a las 17:05 UTC');
    expect(de.text('page.status.wait', { days: 1200 })).toBe('Geschätzte Wartezeit: etwa 1.200 Tage');
  });

  it('escapes the values of an HTML message, not its own words, and takes markup as it is', () => {
    expect(en.html('page.status.heading', { product: '<b>A&B</b>' }).value).toBe("You're on the &lt;b&gt;A&amp;B&lt;/b&gt; waitlist");
    expect(en.html('page.status.heading', { product: html`<strong>${'A'}</strong>` }).value).toBe("You're on the <strong>A</strong> waitlist");
  });
});
