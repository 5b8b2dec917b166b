import { MAX_PADDING_MS, SignupPace, SignupWrite } from './signup-pace';

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

  describe('on a fake clock, whose timers fire 1.5 ms late', () => {
    /** A clock that moves only when a sign-up works or sleeps, and a seeded draw: the same run every time. */
    function fakeRun() {
      let now = 0;
      let seed = 42;
      const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
      const clock = { now: () => now, sleep: async (ms: number) => (now += ms + 1.5) };
      const pace = new SignupPace(random, clock);
      /** How long a sign-up that works `ms` and writes `write` takes, from its start until it answers. */
      const signUp = async (write: SignupWrite, ms: number) => {
        const answer = pace.start();
        const started = now;
        now += ms;
        await answer(write);
        return now - started;
      };
      return { signUp };
    }
    const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

    it('a known address answers as late as a new one on average: what it did not write, it waits', async () => {
      const { signUp } = fakeRun();
      const took: Record<SignupWrite, number[]> = { created: [], mailed: [], unchanged: [], dropped: [] };
      for (let round = 0; round < 300; round++) {
        // New addresses take 20 ms; a pending one's second mail 8 ms, an address further along 5 ms, a dropped sign-up 2 ms.
        for (const [write, ms] of [['created', 20], ['unchanged', 5], ['created', 20], ['mailed', 8], ['dropped', 2]] as const) {
          const total = await signUp(write, ms);
          if (round >= 64) took[write].push(total);
        }
      }
      expect(mean(took.created)).toBe(20);
      expect(Math.abs(mean(took.unchanged) - 20)).toBeLessThan(0.1);
      expect(Math.abs(mean(took.mailed) - 20)).toBeLessThan(0.1);
      expect(Math.abs(mean(took.dropped) - 20)).toBeLessThan(0.1);
      // Whole milliseconds only, and never more than the difference.
      expect(took.unchanged.every((ms) => Number.isInteger(ms - 5 - 1.5) && ms <= 21.5)).toBe(true);
    });

    it('waits nothing for a new address, nor before it knows how long new ones take', async () => {
      const { signUp } = fakeRun();
      expect(await signUp('unchanged', 5)).toBe(5);
      expect(await signUp('created', 20)).toBe(20);
      expect(await signUp('created', 30)).toBe(30);
      expect(await signUp('unchanged', 5)).toBeGreaterThan(5);
    });
  });
});

