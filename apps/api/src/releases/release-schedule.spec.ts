import { latestTick, nextTicks, scheduleProblem, tickKey, zonedTime } from './release-schedule';

const BERLIN = 'Europe/Berlin';
const local = (instants: Date[]) => instants.map((instant) => zonedTime(instant, BERLIN));

describe(scheduleProblem.name, () => {
  it('accepts five fields, and six with seconds first', () => {
    expect(scheduleProblem('0 9 * * 1', BERLIN)).toBeNull();
    expect(scheduleProblem('*/5 * * * * *', 'UTC')).toBeNull();
  });

  it('names what is wrong with an expression or a zone', () => {
    expect(scheduleProblem('61 * * * *', BERLIN)).toMatch(/^The cron expression is not valid: /);
    expect(scheduleProblem('* * *', BERLIN)).toMatch(/five fields/);
    expect(scheduleProblem('0 9 * * 1', 'Europe/Nowhere')).toBe('The time zone must be an IANA time zone such as Europe/Berlin.');
  });
});

describe(nextTicks.name, () => {
  it('runs a daily 02:00 once on the spring day, at 03:00, as the hour 02:00–03:00 does not exist', () => {
    expect(local(nextTicks('0 2 * * *', BERLIN, new Date('2026-03-27T12:00:00Z'), 3))).toEqual([
      '2026-03-28T02:00:00+01:00',
      '2026-03-29T03:00:00+02:00',
      '2026-03-30T02:00:00+02:00',
    ]);
  });

  it('runs a daily 02:30 once on the spring day, at 03:30', () => {
    expect(local(nextTicks('30 2 * * *', BERLIN, new Date('2026-03-27T12:00:00Z'), 3))).toEqual([
      '2026-03-28T02:30:00+01:00',
      '2026-03-29T03:30:00+02:00',
      '2026-03-30T02:30:00+02:00',
    ]);
  });

  it('runs a daily 02:00 and 02:30 once on the autumn day, in the first of the two hours', () => {
    expect(local(nextTicks('0 2 * * *', BERLIN, new Date('2026-10-23T12:00:00Z'), 3))).toEqual([
      '2026-10-24T02:00:00+02:00',
      '2026-10-25T02:00:00+02:00',
      '2026-10-26T02:00:00+01:00',
    ]);
    expect(local(nextTicks('30 2 * * *', BERLIN, new Date('2026-10-23T12:00:00Z'), 3))).toEqual([
      '2026-10-24T02:30:00+02:00',
      '2026-10-25T02:30:00+02:00',
      '2026-10-26T02:30:00+01:00',
    ]);
  });
});

describe(tickKey.name, () => {
  it('gives the two 02:00 of the autumn night one key, so the run guard lets one through', () => {
    const [, first, second] = nextTicks('0 * * * *', BERLIN, new Date('2026-10-24T22:30:00Z'), 3);
    expect([first.toISOString(), second.toISOString()]).toEqual(['2026-10-25T00:00:00.000Z', '2026-10-25T01:00:00.000Z']);
    expect(tickKey(first, BERLIN)).toBe('2026-10-25 02:00:00.000');
    expect(tickKey(second, BERLIN)).toBe(tickKey(first, BERLIN));
  });

  it('gives an hourly release on the spring night distinct keys, none of them in the missing hour', () => {
    const keys = nextTicks('30 * * * *', BERLIN, new Date('2026-03-28T23:10:00Z'), 4).map((tick) => tickKey(tick, BERLIN));
    expect(keys).toEqual(['2026-03-29 00:30:00.000', '2026-03-29 01:30:00.000', '2026-03-29 03:30:00.000', '2026-03-29 04:30:00.000']);
  });
});

describe(latestTick.name, () => {
  it('is the last tick at or before a time, the one a reconcile would owe', () => {
    expect(latestTick('0 9 * * *', 'UTC', new Date('2026-11-25T10:00:00Z'))?.toISOString()).toBe('2026-11-25T09:00:00.000Z');
    expect(latestTick('0 9 * * *', 'UTC', new Date('2026-11-25T09:00:00Z'))?.toISOString()).toBe('2026-11-25T09:00:00.000Z');
  });
});
