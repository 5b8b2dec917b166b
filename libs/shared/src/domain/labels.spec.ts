import { questionWords } from './questions';
import { milestoneWords } from './referrals';

describe('words in the visitor’s language', () => {
  it('questionWords gives the language’s label and choices, each falling back to the default words', () => {
    const question = { key: 'role', type: 'single_choice' as const, required: false, label: 'Role', choices: ['A', 'B'], labels: { de: { choices: ['', 'Be'] }, fr: { label: 'Rôle' } } };
    expect(questionWords(question, 'de')).toEqual({ label: 'Role', choices: ['A', 'Be'] });
    expect(questionWords(question, 'fr')).toEqual({ label: 'Rôle', choices: ['A', 'B'] });
    expect(questionWords(question, 'en')).toEqual({ label: 'Role', choices: ['A', 'B'] });
  });

  it('milestoneWords gives the language’s name and line, each falling back to the default words', () => {
    const milestone = { name: 'Three', message: 'Thanks', labels: { de: { name: 'Drei' } } };
    expect(milestoneWords(milestone, 'de')).toEqual({ name: 'Drei', message: 'Thanks' });
    expect(milestoneWords(milestone, 'es')).toEqual({ name: 'Three', message: 'Thanks' });
  });
});
