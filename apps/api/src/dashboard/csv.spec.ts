import { CSV_HEADER, csvRows } from './csv';

describe(csvRows.name, () => {
  it('quotes what needs quoting and defuses spreadsheet formulas', () => {
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
    expect(CSV_HEADER + csvRows([entry])).toBe(
      'id,email,state,createdAt,confirmedAt,invitedAt,redeemedAt,referralCode,referrals,locale\r\n' +
        `ent_1,a@example.com,confirmed,2026-11-22T10:00:00.000Z,,,,"'=cmd",2,de\r\n`,
    );
  });
});
