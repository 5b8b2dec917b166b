import { claimWindowProblem, codeTimes } from './claim-window';

const NOW = new Date('2026-11-25T10:00:00.000Z');
const DAY = 86_400_000;

describe('codeTimes', () => {
  it('without a window a code lives INVITE_CODE_TTL and has no window or reminder', () => {
    expect(codeTimes({ days: null, reminderHours: 24 }, NOW, 30 * DAY)).toEqual({ expiresAt: new Date(NOW.getTime() + 30 * DAY), claimEndsAt: null, remindAt: null });
  });

  it('a window ends the code with it, and the reminder comes its hours before', () => {
    expect(codeTimes({ days: 7, reminderHours: 24 }, NOW, 30 * DAY)).toEqual({
      expiresAt: new Date(NOW.getTime() + 7 * DAY),
      claimEndsAt: new Date(NOW.getTime() + 7 * DAY),
      remindAt: new Date(NOW.getTime() + 6 * DAY),
    });
  });

  it('no reminder for 0 or none, and the window never outlives the code', () => {
    expect(codeTimes({ days: 7, reminderHours: 0 }, NOW, 30 * DAY).remindAt).toBeNull();
    expect(codeTimes({ days: 7, reminderHours: null }, NOW, 30 * DAY).remindAt).toBeNull();
    expect(codeTimes({ days: 30, reminderHours: 1 }, NOW, 2 * DAY)).toEqual({
      expiresAt: new Date(NOW.getTime() + 2 * DAY),
      claimEndsAt: new Date(NOW.getTime() + 2 * DAY),
      remindAt: new Date(NOW.getTime() + 2 * DAY - 3_600_000),
    });
    // A code shorter than the reminder's lead gets none.
    expect(codeTimes({ days: 30, reminderHours: 72 }, NOW, 2 * DAY).remindAt).toBeNull();
  });
});

describe('claimWindowProblem', () => {
  it('refuses a reminder at or before the window starts', () => {
    expect(claimWindowProblem({ days: 1, reminderHours: 24 })).toMatch(/fewer than 24 hours/);
    expect(claimWindowProblem({ days: 1, reminderHours: 23 })).toBeNull();
    expect(claimWindowProblem({ days: null, reminderHours: 100 })).toBeNull();
  });
});
