import { CSV_HEADER, csvRows } from './csv';

describe(csvRows.name, () => {
  const entry = {
    id: 'ent_1',
    email: 'a@example.com',
    state: 'confirmed' as const,
    createdAt: '2026-11-22T10:00:00.000Z',
    confirmedAt: null,
    invitedAt: null,
    redeemedAt: null,
    referralCode: '=cmd',
    referrals: 2,
    locale: 'de' as const,
  };
  const HEADER = 'id,email,state,createdAt,confirmedAt,invitedAt,redeemedAt,referralCode,referrals,locale,utm_source,utm_medium,utm_campaign,utm_term,utm_content,referrer,landing_page,answers\r\n';

  it('quotes what needs quoting and defuses spreadsheet formulas', () => {
    expect(CSV_HEADER + csvRows([entry], new Map())).toBe(HEADER + `ent_1,a@example.com,confirmed,2026-11-22T10:00:00.000Z,,,,"'=cmd",2,de,,,,,,,,\r\n`);
  });

  it('appends the language, the attribution and the answers (as JSON) at the end', () => {
    const details = new Map([['ent_1', { answers: { role: 'Founder', tools: ['A', 'B'] }, attribution: { utm_source: '-news', landing_page: 'https://a.example/?x=1' } }]]);
    expect(csvRows([entry], details)).toBe(
      `ent_1,a@example.com,confirmed,2026-11-22T10:00:00.000Z,,,,"'=cmd",2,de,"'-news",,,,,,https://a.example/?x=1,"{""role"":""Founder"",""tools"":[""A"",""B""]}"\r\n`,
    );
  });
});
