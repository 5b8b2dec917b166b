import { MILESTONES_FORM, milestonesAsText, milestonesReached } from './milestones';

describe('milestones', () => {
  const three = { referrals: 3, name: 'Three friends', places: 5, message: 'You skip 5 places.' };
  const one = { referrals: 1, name: 'First friend', places: 0, message: null };

  it('a referrer reaches every milestone up to its credited referrals', () => {
    expect(milestonesReached([one, three], 0)).toEqual([]);
    expect(milestonesReached([one, three], 2)).toEqual([one]);
    expect(milestonesReached([one, three], 7)).toEqual([one, three]);
  });

  it('reads one milestone a line or per ;, places and line optional, in ascending order, and writes them back', () => {
    const parsed = MILESTONES_FORM.parse('3 | Three friends | 5 | You skip 5 places.\n1 | First friend');
    expect(parsed).toEqual([one, three]);
    expect(MILESTONES_FORM.parse('1 | First friend; 3|Three friends|5|You skip 5 places.')).toEqual(parsed);
    expect(MILESTONES_FORM.parse(milestonesAsText(parsed))).toEqual(parsed);
    expect(MILESTONES_FORM.parse('')).toEqual([]);
  });

  it('refuses more than ten, a number twice, and a malformed line', () => {
    const eleven = Array.from({ length: 11 }, (_, i) => `${i + 1} | M${i}`).join('\n');
    expect(MILESTONES_FORM.safeParse(eleven).error?.issues[0].message).toBe('A product has at most 10 milestones');
    expect(MILESTONES_FORM.safeParse('2 | A\n2 | B').success).toBe(false);
    expect(MILESTONES_FORM.safeParse('0 | Nothing').success).toBe(false);
    expect(MILESTONES_FORM.safeParse('two | Two').success).toBe(false);
    expect(MILESTONES_FORM.safeParse('2 |').success).toBe(false);
    expect(MILESTONES_FORM.safeParse('2 | A | -1').success).toBe(false);
  });
});
