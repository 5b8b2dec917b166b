import { CSV_HEADER } from '../../dashboard/entries/csv';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApiError } from '../../common/api-error';
import { columnsOf, CUSTOM_MAPPING, KNOWN_FORMATS, likelyFields } from './columns';

const FIXTURES = join(__dirname, '../../../../../test/fixtures/imports');
/** A fixture's header row (the fixtures' headers hold no quotes or commas). */
const headerOf = (file: string) => readFileSync(join(FIXTURES, file), 'utf8').split('\n')[0].split(',');

describe('columnsOf', () => {
  it.each([
    ['getwaitlist.csv', 'getwaitlist'],
    ['waitlister.csv', 'waitlister'],
    ['prefinery.csv', 'prefinery'],
    ['viral-loops.csv', 'viral-loops'],
    ['launchlist.csv', 'launchlist'],
  ])('recognises %s as the export of %s', (file, format) => {
    expect(columnsOf(headerOf(file)).format).toBe(format);
  });

  it("reads this service's own download", () => {
    expect(columnsOf(['id', 'email', 'state', 'createdAt', 'confirmedAt', 'invitedAt', 'redeemedAt', 'referralCode', 'referrals']).format).toBe('waitlist');
    // With the attribution and answers columns that the download ends with since the sign-up questions.
    expect(columnsOf(CSV_HEADER.trim().split(',')).format).toBe('waitlist');
  });

  it('finds every field of a format by its column, whatever the case and a byte order mark', () => {
    const { at } = columnsOf(['\uFEFFEMAIL', 'Created_At', 'priority', 'Referral_Token', 'referred_by', 'amount_referred', 'verified']);
    expect(at).toEqual({ email: 0, createdAt: 1, referralCode: 3, referredBy: 4, referralCount: 5, state: 6 });
  });

  it('each known format has an email column and a signature of its own', () => {
    for (const format of KNOWN_FORMATS) {
      const header = [...new Set([...Object.values(format.columns), ...format.signature])];
      expect(columnsOf(header).format).toBe(format.name);
    }
  });

  it('refuses a header it does not know, and names it, unless a mapping is given', () => {
    expect(() => columnsOf(['Mail', 'Joined'])).toThrow(/Mail|mail, joined/);
    const mapping = CUSTOM_MAPPING.parse('{"Mail": "email", "Joined": "createdAt"}');
    expect(columnsOf(['Mail', 'Joined'], mapping)).toEqual({ format: 'custom', at: { email: 0, createdAt: 1 } });
  });

  it("refuses a mapping whose column the file does not have", () => {
    const mapping = CUSTOM_MAPPING.parse('{"Mail": "email", "Code": "referralCode"}');
    expect(() => columnsOf(['Mail'], mapping)).toThrow(ApiError);
  });

  it('reads a mapping only as a JSON object from column to a known field, with email', () => {
    expect(CUSTOM_MAPPING.safeParse('not json').success).toBe(false);
    expect(CUSTOM_MAPPING.safeParse('{"Mail": "address"}').success).toBe(false);
    expect(CUSTOM_MAPPING.safeParse('{"Joined": "createdAt"}').success).toBe(false);
    expect(CUSTOM_MAPPING.safeParse('{"A": "email", "B": "email"}').success).toBe(false);
  });
});

describe('likelyFields', () => {
  it("gives a recognised export's columns their fields", () => {
    expect(likelyFields(headerOf('getwaitlist.csv'))).toEqual(['email', 'createdAt', undefined, 'referralCode', 'referredBy', 'referralCount', 'state']);
  });

  it('gives a header that names a field its field, each field to its first column only', () => {
    expect(likelyFields(['E-Mail Address', 'Joined On', 'Created At', 'created_at', 'Referral Code', 'Mail'])).toEqual([
      'email',
      undefined,
      'createdAt',
      undefined,
      'referralCode',
      undefined,
    ]);
  });
});
