import { overVelocity } from './network-velocity';

describe(overVelocity.name, () => {
  it('lets the first `limit` referrals of a network through and withholds the rest', () => {
    expect([0, 1, 2, 3, 4].map((earlier) => overVelocity(earlier, 3))).toEqual([false, false, false, true, true]);
  });

  it('has no limit at 0', () => {
    expect(overVelocity(1000, 0)).toBe(false);
  });
});
