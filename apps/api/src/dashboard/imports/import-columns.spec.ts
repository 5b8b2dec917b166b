import { ApiError } from '../../common/api-error';
import { firstLook, mappingOf, picksOf } from './import-columns';

describe('mappingOf', () => {
  it('maps each column picked to its field, as the API takes a mapping', () => {
    expect(mappingOf(['email', '', 'createdAt'], ['E-Mail Address', 'Notes', 'Joined On'])).toBe('{"E-Mail Address":"email","Joined On":"createdAt"}');
  });

  it('sends no mapping when the picks are what a recognised export says, so that it imports as that export', () => {
    const header = ['email', 'created_at', 'priority', 'referral_token', 'referred_by', 'amount_referred', 'verified'];
    expect(mappingOf(['email', 'createdAt', '', 'referralCode', 'referredBy', 'referralCount', 'state'], header)).toBeUndefined();
    expect(mappingOf(['email', 'createdAt', '', 'referralCode', 'referredBy', 'referralCount', ''], header)).toBe(
      '{"email":"email","created_at":"createdAt","referral_token":"referralCode","referred_by":"referredBy","amount_referred":"referralCount"}',
    );
  });

  it('refuses a pick for a column the file does not have, of no field, or for a header twice, naming the column', () => {
    const refused = (picks: string[], header: string[]) => {
      try {
        mappingOf(picks, header);
      } catch (error) {
        return [(error as ApiError).details.param, (error as ApiError).message];
      }
      return undefined;
    };
    expect(refused(['email', '', 'createdAt'], ['Mail', 'Joined'])).toEqual(['column2', 'The file has no column 3: createdAt was picked for it.']);
    expect(refused(['', 'createdAt'], ['Mail', ' '])).toEqual(['column1', 'The column 2 has no header: give it one in the file to import it.']);
    expect(refused(['address'], ['Mail'])).toEqual(['column0', expect.stringContaining('for the column Mail')]);
    expect(refused(['email', 'createdAt'], ['Mail', 'MAIL'])).toEqual(['column1', expect.stringContaining('two columns MAIL')]);
  });
});

describe('picksOf', () => {
  it('reads the selects in the order of the columns, up to the first one missing', () => {
    expect(picksOf({ column0: 'email', column1: '', column2: 'state', column4: 'id', state: 'confirmed' })).toEqual(['email', '', 'state']);
  });
});

describe('firstLook', () => {
  async function* records(...rows: string[][]) {
    for (const [index, fields] of rows.entries()) yield { line: index + 1, fields };
  }

  it('keeps the header and the first rows, each cell cut for the page, with the fields the full headers name, and refuses an empty file', async () => {
    const long = 'x'.repeat(100);
    const look = await firstLook(records(['email', long], ['ada@example.com']));
    expect(look).toEqual({ columns: { header: ['email', `${'x'.repeat(59)}…`], rows: [['ada@example.com']] }, picks: ['email', ''] });
    await expect(firstLook(records())).rejects.toThrow('The file is empty');
    // Text the page could not show as it is (a NUL, half of a character) is left out.
    expect((await firstLook(records(['e\u0000mail', '\ud83dx']))).columns.header).toEqual(['email', 'x']);
  });

  it('shows the first five rows', async () => {
    const rows = Array.from({ length: 20 }, (_, index) => [`row${index}`]);
    const look = await firstLook(records(['email'], ...rows));
    expect(look.columns.rows).toEqual(rows.slice(0, 5));
  });
});
