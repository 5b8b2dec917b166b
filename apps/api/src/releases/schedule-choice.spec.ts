import { choiceOfPattern, patternOfChoice, runInWords, scheduleInWords } from './schedule-choice';

const choice = (fields: Partial<Record<'kind' | 'day' | 'at' | 'hours' | 'pattern', string>>) => ({ kind: 'cron', day: '1', at: '09:00', hours: '6', pattern: '', ...fields });

describe(patternOfChoice.name, () => {
  it('turns each common schedule into its cron expression', () => {
    expect(patternOfChoice(choice({ kind: 'weekdays', at: '09:30' }))).toBe('30 9 * * 1-5');
    expect(patternOfChoice(choice({ kind: 'weekly', day: '1', at: '09:00' }))).toBe('0 9 * * 1');
    expect(patternOfChoice(choice({ kind: 'daily', at: '18:05' }))).toBe('5 18 * * *');
    expect(patternOfChoice(choice({ kind: 'hours', hours: '6' }))).toBe('0 */6 * * *');
    expect(patternOfChoice(choice({ kind: 'hours', hours: '1' }))).toBe('0 * * * *');
    expect(patternOfChoice(choice({ kind: 'cron', pattern: ' 15 */2 * * 0 ' }))).toBe('15 */2 * * 0');
  });

  it('names the field of a choice that is not one', () => {
    expect(() => patternOfChoice(choice({ kind: 'weekly', at: '25:00' }))).toThrow(expect.objectContaining({ code: 'invalid_request', details: { param: 'at' } }));
    expect(() => patternOfChoice(choice({ kind: 'weekly', day: '7' }))).toThrow(expect.objectContaining({ details: { param: 'day' } }));
    expect(() => patternOfChoice(choice({ kind: 'hours', hours: '5' }))).toThrow(expect.objectContaining({ details: { param: 'hours' } }));
    expect(() => patternOfChoice(choice({ kind: 'monthly' }))).toThrow(expect.objectContaining({ details: { param: 'kind' } }));
  });
});

describe(choiceOfPattern.name, () => {
  it('reads back the choice a pattern was made from, and anything else as cron', () => {
    expect(choiceOfPattern('30 9 * * 1-5')).toMatchObject({ kind: 'weekdays', at: '09:30' });
    expect(choiceOfPattern('0 9 * * 1')).toMatchObject({ kind: 'weekly', day: '1', at: '09:00' });
    expect(choiceOfPattern('0 */6 * * *')).toMatchObject({ kind: 'hours', hours: '6' });
    expect(choiceOfPattern('0 9 1 * *')).toMatchObject({ kind: 'cron', pattern: '0 9 1 * *' });
  });
});

describe(scheduleInWords.name, () => {
  it('says a common schedule in words, and nothing for another', () => {
    expect(scheduleInWords('0 9 * * 1')).toBe('every Monday at 09:00');
    expect(scheduleInWords('30 9 * * 1-5')).toBe('every weekday at 09:30');
    expect(scheduleInWords('5 18 * * *')).toBe('every day at 18:05');
    expect(scheduleInWords('0 */6 * * *')).toBe('every 6 hours');
    expect(scheduleInWords('0 * * * *')).toBe('every hour');
    expect(scheduleInWords('0 9 1 * *')).toBeNull();
  });
});

describe(runInWords.name, () => {
  it('says a run as its zone shows it', () => {
    expect(runInWords(new Date('2026-11-30T08:00:00Z'), 'Europe/Berlin')).toBe('Monday 30 November, 09:00 (Europe/Berlin)');
    expect(runInWords(new Date('2026-12-01T08:00:00Z'), 'America/New_York')).toBe('Tuesday 1 December, 03:00 (America/New_York)');
  });
});
