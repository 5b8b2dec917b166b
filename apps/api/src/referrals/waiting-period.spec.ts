import { waitingOver, waitingPeriod } from './waiting-period';

describe(waitingPeriod.name, () => {
  const confirmed = new Date('2026-11-25T10:00:00.000Z');

  it('is none without days or a state to wait for', () => {
    expect(waitingPeriod(confirmed, { waitingDays: 0, waitingFor: 'confirmed' })).toBeNull();
  });

  it('ends D days after the confirmation', () => {
    expect(waitingPeriod(confirmed, { waitingDays: 3, waitingFor: 'confirmed' })).toEqual({ creditAt: new Date('2026-11-28T10:00:00.000Z'), creditAfter: null });
  });

  it('may wait for the referred entry to be invited or to redeem', () => {
    expect(waitingPeriod(confirmed, { waitingDays: 0, waitingFor: 'invited' })).toEqual({ creditAt: null, creditAfter: 'invited' });
  });
});

describe(waitingOver.name, () => {
  const due = new Date('2026-11-28T10:00:00.000Z');
  const before = new Date(due.getTime() - 1);

  it('is over once the day has come', () => {
    expect(waitingOver({ creditAt: due, creditAfter: null }, 'confirmed', before)).toBe(false);
    expect(waitingOver({ creditAt: due, creditAfter: null }, 'confirmed', due)).toBe(true);
  });

  it('is over once the entry got as far as it waits for; redeemed is past invited', () => {
    expect(waitingOver({ creditAt: null, creditAfter: 'invited' }, 'confirmed', due)).toBe(false);
    expect(waitingOver({ creditAt: null, creditAfter: 'invited' }, 'invited', due)).toBe(true);
    expect(waitingOver({ creditAt: null, creditAfter: 'invited' }, 'redeemed', due)).toBe(true);
    expect(waitingOver({ creditAt: null, creditAfter: 'redeemed' }, 'invited', due)).toBe(false);
  });

  it('needs both the days and the state when both are set', () => {
    expect(waitingOver({ creditAt: due, creditAfter: 'invited' }, 'invited', before)).toBe(false);
    expect(waitingOver({ creditAt: due, creditAfter: 'invited' }, 'confirmed', due)).toBe(false);
    expect(waitingOver({ creditAt: due, creditAfter: 'invited' }, 'invited', due)).toBe(true);
  });
});
