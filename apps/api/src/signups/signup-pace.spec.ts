import { MAX_PADDING_MS, SignupPace, SignupWrite } from './signup-pace';

describe(SignupPace.name, () => {
  it('pads nothing until both a new and a known address have signed up', () => {
    const pace = new SignupPace();
    expect(pace.padding('unchanged')).toBe(0);
    pace.note('unchanged', 3);
    expect(pace.padding('unchanged')).toBe(0);
    pace.note('created', 8);
    expect(pace.padding('unchanged')).toBe(5);
  });

  it('pads a known sign-up by what the median new one takes more than the median one of its kind', () => {
    const pace = new SignupPace();
    for (const ms of [6, 10, 7, 30]) pace.note('created', ms);
    for (const ms of [4, 5, 40]) pace.note('mailed', ms);
    for (const ms of [2, 3, 100]) pace.note('unchanged', ms);
    expect(pace.padding('mailed')).toBe(3.5);
    expect(pace.padding('unchanged')).toBe(5.5);
    expect(pace.padding('created')).toBe(0);
  });

  it('asks a timer for the whole milliseconds less its recent lateness, and for none under a millisecond', () => {
    const pace = new SignupPace();
    expect(pace.timerMs(5.7)).toBe(5);
    pace.noteWait(2, 3.5);
    // 5.7 ms less 1.5 of lateness: a timer of 4 ms, the rest turn by turn.
    expect(pace.timerMs(5.7)).toBe(4);
    expect(pace.timerMs(0.8)).toBe(0);
  });

  it('pads nothing when the known kind takes as long', () => {
    const pace = new SignupPace();
    pace.note('created', 5);
    pace.note('mailed', 9);
    expect(pace.padding('mailed')).toBe(0);
  });

  it(`pads at most ${MAX_PADDING_MS} ms, however slow new sign-ups were`, () => {
    const pace = new SignupPace();
    pace.note('created', 5_000);
    pace.note('unchanged', 1);
    expect(pace.padding('unchanged')).toBe(MAX_PADDING_MS);
  });

  it('keeps the recent sign-ups only', () => {
    const pace = new SignupPace();
    for (let i = 0; i < 64; i++) pace.note('created', 40);
    for (let i = 0; i < 64; i++) pace.note('created', 10);
    pace.note('unchanged', 4);
    expect(pace.padding('unchanged')).toBe(6);
  });

  describe('on a fake clock, whose timers fire 1.5 ms late', () => {
    /** A clock that moves only when a sign-up works, sleeps or waits a turn of the event loop (0.02 ms). */
    function fakeRun() {
      let now = 0;
      const clock = { now: () => now, sleep: async (ms: number) => (now += ms + 1.5), turn: async () => (now += 0.02) };
      const pace = new SignupPace(clock);
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
      // The difference itself, to a turn of the event loop.
      expect(took.unchanged.every((ms) => ms >= 20 && ms < 20.02 + 1e-9)).toBe(true);
    });

    it('a known address answers as late as a new one in the median too, when the difference is under a millisecond', async () => {
      const { signUp } = fakeRun();
      const took: Record<SignupWrite, number[]> = { created: [], mailed: [], unchanged: [], dropped: [] };
      for (let round = 0; round < 200; round++) {
        for (const [write, ms] of [['created', 5.3], ['unchanged', 5]] as const) {
          const total = await signUp(write, ms);
          if (round >= 64) took[write].push(total);
        }
      }
      const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
      // Not 1 ms now and then and nothing otherwise: a robust estimate (a median, a trimmed mean) would see the 0.3 ms.
      expect(Math.abs(median(took.unchanged) - 5.3)).toBeLessThan(0.05);
      expect(took.unchanged.every((ms) => ms >= 5.3 && ms < 5.3 + 0.05)).toBe(true);
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

