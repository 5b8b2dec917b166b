import { estimatedWaitDays, InLine, lineBucket, lineKey, lineOrder, LineStanding } from './line';

/** lineOrder's values compared left to right, as PostgreSQL compares IN_LINE_ORDER's. */
function inLine(a: InLine, b: InLine): number {
  const [x, y] = [lineOrder(a), lineOrder(b)];
  return x[0] - y[0] || Number(x[1]) - Number(y[1]) || x[2] - y[2];
}

/** Entries named by their confirmation sequence number, in line order with these referral places. */
function line(referralPlaces: number, standings: Partial<LineStanding>[]): number[] {
  return standings
    .map((standing, i) => {
      const entry = { confirmationSeq: i + 1, referrals: 0, movedUp: 0, ...standing };
      return { ...entry, lineKey: lineKey(entry, referralPlaces) };
    })
    .sort(inLine)
    .map((entry) => entry.confirmationSeq);
}

describe(lineKey.name, () => {
  it.each([
    [{ confirmationSeq: 7, referrals: 0, movedUp: 0 }, 1, 7],
    [{ confirmationSeq: 7, referrals: 2, movedUp: 0 }, 3, 1],
    [{ confirmationSeq: 7, referrals: 1, movedUp: 4 }, 1, 2],
    [{ confirmationSeq: 7, referrals: 5, movedUp: 0 }, 0, 7],
    [{ confirmationSeq: 3, referrals: 0, movedUp: 1000 }, 1, -997],
  ])('%p with %i referral places: %i', (entry, places, key) => expect(lineKey(entry, places)).toBe(key));
});

describe(lineOrder.name, () => {
  it('is the key, whether the entry was not moved up, and the confirmation', () => {
    expect(lineOrder({ lineKey: 4, confirmationSeq: 5 })).toEqual([4, false, 5]);
    expect(lineOrder({ lineKey: 4, confirmationSeq: 4 })).toEqual([4, true, 4]);
  });
});

describe('line order', () => {
  it('the first referral gains its place: #5 with one referral passes #4', () =>
    expect(line(1, [{}, {}, {}, {}, { referrals: 1 }])).toEqual([1, 2, 3, 5, 4]));

  it('a move-up call wins the tie too', () => expect(line(1, [{}, {}, { movedUp: 1 }])).toEqual([1, 3, 2]));

  it('two entries moved up to the same key: the earlier confirmation first', () =>
    expect(line(2, [{}, {}, {}, {}, { referrals: 1 }, {}, { movedUp: 4 }])).toEqual([1, 2, 5, 7, 3, 4, 6]));

  it('referrals worth no places move nobody, so they win no tie', () =>
    expect(line(0, [{}, { referrals: 3 }, { movedUp: 1 }])).toEqual([1, 3, 2]));

  it('keys below the front of the line and referrals with move-up calls add up', () =>
    expect(line(1, [{}, {}, {}, { referrals: 1, movedUp: 2 }, { movedUp: 1000 }])).toEqual([5, 4, 1, 2, 3]));
});

describe(estimatedWaitDays.name, () => {
  it.each([
    [1, 0, null],
    [500, 0, null],
    [1, 300, 1],
    [10, 300, 1],
    [11, 300, 2],
    [300, 300, 30],
    [7, 3, 70],
  ])('place %i with %i invitations in 30 days: %p days', (place, invited, days) => expect(estimatedWaitDays(place, invited)).toBe(days));
});

describe(lineBucket.name, () => {
  it.each([
    [0, 0],
    [1023, 0],
    [1024, 1],
    [2_500_000, 2441],
    [-1, -1],
    [-1024, -1],
    [-1025, -2],
  ])('line key %i is in stretch %i', (key, bucket) => expect(lineBucket(key)).toBe(bucket));
});
