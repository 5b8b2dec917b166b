import { inBurst } from './referral-burst';

describe(inBurst.name, () => {
  it('holds the sign-ups through one link past the limit of the hour', () => {
    expect([0, 1, 2, 3, 4].map((earlier) => inBurst(earlier, 3))).toEqual([false, false, false, true, true]);
  });

  it('holds nothing without a cap', () => {
    expect(inBurst(1_000_000, 0)).toBe(false);
  });
});
