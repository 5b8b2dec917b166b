import { MAX_PADDING_MS, SignupPace } from './signup-pace';

describe(SignupPace.name, () => {
  it('pads nothing until both a new and a known address have signed up', () => {
    const pace = new SignupPace(() => 0);
    expect(pace.padding('unchanged')).toBe(0);
    pace.note('unchanged', 3);
    expect(pace.padding('unchanged')).toBe(0);
    pace.note('created', 8);
    expect(pace.padding('unchanged')).toBe(5);
  });

  it('pads a known sign-up by what the median new one takes more than the median one of its kind', () => {
    const pace = new SignupPace(() => 0.99);
    for (const ms of [6, 10, 7, 30]) pace.note('created', ms);
    for (const ms of [4, 5, 40]) pace.note('mailed', ms);
    for (const ms of [2, 3, 100]) pace.note('unchanged', ms);
    expect(pace.padding('mailed')).toBe(3.5 - 0.5);
    expect(pace.padding('unchanged')).toBe(5.5 - 0.5);
    expect(pace.padding('created')).toBe(0);
  });

  it('rounds a fraction of a millisecond up as often as the fraction says', () => {
    let draw = 0;
    const pace = new SignupPace(() => [0.1, 0.5, 0.9, 0.3][draw++ % 4]);
    pace.note('created', 7.4);
    pace.note('unchanged', 5);
    expect([1, 2, 3, 4].map(() => pace.padding('unchanged'))).toEqual([3, 2, 2, 3]);
  });

  it("asks the timer for less by its recent lateness, and for 1 ms as often as a shorter wait's share of it", () => {
    let draw = 0;
    const pace = new SignupPace(() => [0.2, 0.6][draw++ % 2]);
    pace.note('created', 9);
    pace.note('unchanged', 4);
    pace.noteWait(2, 3.5);
    // 5 ms less 1.5 of lateness: 3 or 4 ms, half the time each.
    expect(pace.padding('unchanged')).toBe(4);
    expect(pace.padding('unchanged')).toBe(3);
    pace.note('unchanged', 8.2);
    pace.note('unchanged', 8.2);
    // A difference of 0.8 ms against a wait of 1 ms that takes 2.5: 0.32 of the time.
    expect(pace.padding('unchanged')).toBe(1);
    expect(pace.padding('unchanged')).toBe(0);
  });

  it('pads nothing when the known kind takes as long', () => {
    const pace = new SignupPace(() => 0);
    pace.note('created', 5);
    pace.note('mailed', 9);
    expect(pace.padding('mailed')).toBe(0);
  });

  it(`pads at most ${MAX_PADDING_MS} ms, however slow new sign-ups were`, () => {
    const pace = new SignupPace(() => 0);
    pace.note('created', 5_000);
    pace.note('unchanged', 1);
    expect(pace.padding('unchanged')).toBe(MAX_PADDING_MS);
  });

  it('keeps the recent sign-ups only', () => {
    const pace = new SignupPace(() => 0);
    for (let i = 0; i < 64; i++) pace.note('created', 40);
    for (let i = 0; i < 64; i++) pace.note('created', 10);
    pace.note('unchanged', 4);
    expect(pace.padding('unchanged')).toBe(6);
  });
});
