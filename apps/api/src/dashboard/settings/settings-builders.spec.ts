import { ApiError } from '../../common/api-error';
import { milestoneRows, milestoneRowsOf, milestonesOf, questionRows, questionRowsOf, questionsOf } from './settings-builders';

const refusedParam = (run: () => unknown): string | undefined => {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error.details.param;
    throw error;
  }
  return undefined;
};

describe('settings builders', () => {
  it('milestonesOf reads the rows in order of their numbers, skips empty rows, and keeps words of other languages', () => {
    const rows = milestoneRows({ 'milestones.1.referrals': '3', 'milestones.1.name': 'Three', 'milestones.0.referrals': '1', 'milestones.0.name': 'One', 'milestones.0.name.de': 'Eins', 'milestones.2.name': ' ', 'milestones.x.name': 'ignored' });
    expect(milestonesOf(rows)).toEqual([
      { referrals: 1, name: 'One', places: 0, message: null, labels: { de: { name: 'Eins' } } },
      { referrals: 3, name: 'Three', places: 0, message: null },
    ]);
  });

  it('milestonesOf names the refused field of its row, and the list for a number twice', () => {
    expect(refusedParam(() => milestonesOf(milestoneRows({ 'milestones.0.referrals': '1', 'milestones.0.name': 'A', 'milestones.1.referrals': '2' })))).toBe('milestones.1.name');
    expect(refusedParam(() => milestonesOf(milestoneRows({ 'milestones.0.referrals': '1', 'milestones.0.name': 'A', 'milestones.0.message.fr': 'x'.repeat(201) })))).toBe('milestones.0.message.fr');
    expect(refusedParam(() => milestonesOf(milestoneRows({ 'milestones.0.referrals': '1', 'milestones.0.name': 'A\u0000' })))).toBe('milestones.0.name');
    expect(refusedParam(() => milestonesOf(milestoneRows({ 'milestones.0.referrals': '1', 'milestones.0.name': 'A', 'milestones.1.referrals': '1', 'milestones.1.name': 'B' })))).toBe('milestones');
  });

  it('questionsOf takes choices one a line, and their words in a language in the same order; more words than choices are refused', () => {
    const row = { 'questions.0.key': 'role', 'questions.0.type': 'single_choice', 'questions.0.need': 'required', 'questions.0.label': 'Role', 'questions.0.choices': 'A\r\nB\n' };
    expect(questionsOf(questionRows({ ...row, 'questions.0.choices.es': '\nBe' }))).toEqual([{ key: 'role', type: 'single_choice', required: true, label: 'Role', choices: ['A', 'B'], labels: { es: { choices: ['', 'Be'] } } }]);
    expect(refusedParam(() => questionsOf(questionRows({ ...row, 'questions.0.choices.de': 'a\nb\nc' })))).toBe('questions.0.choices.de');
    expect(refusedParam(() => questionsOf(questionRows({ ...row, 'questions.0.key': 'Role' })))).toBe('questions.0.key');
  });

  it('the rows of stored milestones and questions show them, words of other languages too, and one empty row to add one', () => {
    const milestones = milestoneRowsOf([{ referrals: 2, name: 'Two', places: 1, message: null, labels: { de: { name: 'Zwei' } } }]);
    expect(milestones).toHaveLength(2);
    expect(milestones[0]).toMatchObject({ referrals: '2', name: 'Two', places: '1', message: '', 'name.de': 'Zwei', 'name.fr': '' });
    expect(milestonesOf(milestones)).toEqual([{ referrals: 2, name: 'Two', places: 1, message: null, labels: { de: { name: 'Zwei' } } }]);
    const questions = questionRowsOf([{ key: 'k', type: 'checkbox', required: false, label: 'Tick' }]);
    expect(questions.map((each) => each.key)).toEqual(['k', '']);
  });
});
