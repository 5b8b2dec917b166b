import { readRow, timeOf } from './import-row';

const COLUMNS = { format: 'custom', at: { email: 0, createdAt: 1, referralCode: 2, referredBy: 3, referralCount: 4, state: 5 } };
const NOW = new Date('2026-01-01T00:00:00Z');
const read = (cells: string[]) => readRow(7, cells, COLUMNS, 'confirmed', NOW);

describe('readRow', () => {
  it('reads an address as sign-ups store it, and what the file says of it', () => {
    expect(read([' Ada@Example.COM ', '2025-03-01T10:00:00Z', 'ADA1ref', 'x', '3', 'verified'])).toEqual({
      line: 7, email: 'ada@example.com', createdAt: new Date('2025-03-01T10:00:00Z'), referralCode: 'ADA1ref', referredBy: 'x', referralCount: 3, state: 'confirmed', id: null,
    });
  });

  it('takes the import state for an empty state cell, and the words of the tools for theirs', () => {
    expect(readRow(2, ['a@example.com'], COLUMNS, 'pending', NOW)).toMatchObject({ state: 'pending', createdAt: null, referralCount: null });
    expect(read(['a@example.com', '', '', '', '', 'false'])).toMatchObject({ state: 'pending' });
    expect(read(['a@example.com', '', '', '', '', 'Applied'])).toMatchObject({ state: 'confirmed' });
  });

  it('names the line and the reason of a bad row', () => {
    expect(read(['not-an-address'])).toMatchObject({ line: 7, reason: 'invalid_email' });
    expect(read(['a@example.com', 'yesterday'])).toMatchObject({ reason: 'invalid_time' });
    expect(read(['a@example.com', '2027-01-01'])).toMatchObject({ reason: 'invalid_time' });
    expect(read(['a@example.com', '', '', '', '-1'])).toMatchObject({ reason: 'invalid_referral_count' });
    expect(read(['a@example.com', '', '', '', '2.5'])).toMatchObject({ reason: 'invalid_referral_count' });
    expect(read(['a@example.com', '', '', '', '', 'banned'])).toMatchObject({ reason: 'invalid_state' });
    expect(read(['a@example.com', '', '', '', '', 'Unsubscribed'])).toMatchObject({ reason: 'unsubscribed' });
  });

  it('drops a referral code that a link could not carry, and keeps the row', () => {
    expect(read(['a@example.com', '', 'has space'])).toMatchObject({ email: 'a@example.com', referralCode: null });
    expect(read(['a@example.com', '', 'a/b'])).toMatchObject({ referralCode: null });
  });
});

describe('timeOf', () => {
  it('reads the times the tools write', () => {
    expect(timeOf('2025-01-05 09:00:00')).toEqual(new Date('2025-01-05T09:00:00Z'));
    expect(timeOf('2025-01-05T09:00:00+02:00')).toEqual(new Date('2025-01-05T07:00:00Z'));
    expect(timeOf('2025-02-01')).toEqual(new Date('2025-02-01T00:00:00Z'));
    expect(timeOf('1735689600')).toEqual(new Date('2025-01-01T00:00:00Z'));
    expect(timeOf('1735689600000')).toEqual(new Date('2025-01-01T00:00:00Z'));
    expect(timeOf('2025-13-45')).toBeUndefined();
    expect(timeOf('tomorrow')).toBeUndefined();
  });
});
