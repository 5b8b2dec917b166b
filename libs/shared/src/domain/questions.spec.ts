import { attributionOfPage, cleanAttribution } from './attribution';
import { checkAnswers, Question } from './questions';
import { UNSTORABLE_TEXT } from './text';

const QUESTIONS: Question[] = [
  { key: 'company', type: 'short_text', required: true, label: 'Company' },
  { key: 'story', type: 'long_text', required: false, label: 'Your story' },
  { key: 'role', type: 'single_choice', required: false, label: 'Role', choices: ['Founder', 'Engineer'] },
  { key: 'tools', type: 'multiple_choice', required: false, label: 'Tools', choices: ['Slack', 'Jira'] },
  { key: 'consent', type: 'checkbox', required: true, label: 'I agree' },
];
const good = { company: 'Acme', consent: true };
const problem = (raw: unknown, from: 'json' | 'form' = 'json') => {
  const result = checkAnswers(QUESTIONS, raw, from);
  return 'problem' in result ? result.problem : null;
};

describe(checkAnswers.name, () => {
  it('keeps good answers, trims text and leaves out empty optional ones', () => {
    expect(checkAnswers(QUESTIONS, { company: ' Acme ', story: '', role: 'Founder', tools: ['Jira'], consent: true })).toEqual({
      answers: { company: 'Acme', role: 'Founder', tools: ['Jira'], consent: true },
    });
  });

  it('a product without questions takes no answers or {} and nothing else', () => {
    expect(checkAnswers([], undefined)).toEqual({ answers: {} });
    expect(checkAnswers([], {})).toEqual({ answers: {} });
    expect(checkAnswers([], { x: 'y' })).toEqual({ problem: { key: 'x', message: 'no question has this key' } });
    expect(checkAnswers([], 'text')).toEqual({ problem: { key: null, message: expect.stringContaining('object') } });
    expect(checkAnswers([], [])).toEqual({ problem: { key: null, message: expect.stringContaining('object') } });
  });

  it('names the question that is missing, unknown or wrong', () => {
    expect(problem({ consent: true })).toEqual({ key: 'company', message: '"Company" needs an answer' });
    expect(problem({ ...good, company: '   ' })?.key).toBe('company');
    expect(problem({ ...good, colour: 'red' })).toEqual({ key: 'colour', message: 'no question has this key' });
    expect(problem({ ...good, consent: false })).toEqual({ key: 'consent', message: '"I agree" must be ticked' });
    expect(problem({ company: 'Acme' })?.key).toBe('consent');
  });

  it.each<[string, unknown, string]>([
    ['company', 5, 'expected text'],
    ['company', 'x'.repeat(201), 'is at most 200 characters'],
    ['company', 'a\nb', 'cannot hold control characters'],
    ['story', 'x'.repeat(2001), 'is at most 2,000 characters'],
    ['story', 'a\0b', 'cannot hold control characters'],
    ['story', 'half \ud83d of an emoji', UNSTORABLE_TEXT],
    ['company', '😀'.repeat(201), 'is at most 200 characters'],
    ['role', 'CEO', 'is not one of the choices offered'],
    ['role', ['Founder'], 'expected one of the choices as text'],
    ['tools', 'Slack', 'expected a list of the choices'],
    ['tools', ['Slack', 'Trello'], 'holds a choice that is not offered'],
    ['tools', ['Slack', 'Slack'], 'names a choice twice'],
    ['consent', 'yes', 'expected true or false'],
  ])('refuses a bad answer to %s (%#)', (key, value, message) => {
    expect(problem({ ...good, [key]: value })).toEqual({ key, message });
  });

  it("reads only the answers' own keys, whatever a question's key is named", () => {
    const named: Question[] = [{ key: 'constructor', type: 'short_text', required: false, label: 'Built by' }, { key: 'tostring', type: 'checkbox', required: false, label: 'x' }];
    expect(checkAnswers(named, {})).toEqual({ answers: {} });
    expect(checkAnswers([{ key: 'valueOf', type: 'short_text', required: false, label: 'x' }], {})).toEqual({ answers: {} });
  });

  it('keeps line breaks in a long answer', () => {
    expect(checkAnswers(QUESTIONS, { ...good, story: 'one\r\ntwo' })).toEqual({ answers: { ...good, story: 'one\r\ntwo' } });
  });

  it('reads an HTML form: a ticked box as any value, an unticked one as left out, one choice as one string', () => {
    expect(checkAnswers(QUESTIONS, { company: 'Acme', consent: 'yes', tools: 'Slack', role: '' }, 'form')).toEqual({
      answers: { company: 'Acme', consent: true, tools: ['Slack'] },
    });
    expect(problem({ company: 'Acme' }, 'form')).toEqual({ key: 'consent', message: '"I agree" must be ticked' });
  });
});

describe(cleanAttribution.name, () => {
  it('keeps the known fields, bounded, and drops the rest', () => {
    expect(cleanAttribution({ utm_source: ' news\u0000letter ', utm_term: 'x'.repeat(300), gclid: 'abc', referrer: 'javascript:alert(1)', landing_page: 'https://a.example/x?y=1' })).toEqual({
      utm_source: 'newsletter',
      utm_term: 'x'.repeat(200),
      landing_page: 'https://a.example/x?y=1',
    });
    expect(cleanAttribution({ referrer: `https://a.example/${'x'.repeat(2000)}` })).toBeNull();
    expect(cleanAttribution('utm_source=x')).toBeNull();
    expect(cleanAttribution({ utm_source: 7 })).toBeNull();
  });

  it('drops lone surrogates like any other bad character and cuts by code points, never inside a pair', () => {
    expect(cleanAttribution({ utm_campaign: `x${'😀'.repeat(250)}`, utm_source: 'news\ud83dletter', landing_page: 'https://a.example/\ude00x' })).toEqual({
      utm_campaign: `x${'😀'.repeat(199)}`,
      utm_source: 'newsletter',
      landing_page: 'https://a.example/x',
    });
  });

  it('reads the UTM parameters of a page and takes it as the landing page', () => {
    expect(attributionOfPage('https://acme.example/join?utm_source=news&utm_campaign=launch&other=1', 'https://t.co/abc')).toEqual({
      utm_source: 'news',
      utm_campaign: 'launch',
      landing_page: 'https://acme.example/join?utm_source=news&utm_campaign=launch&other=1',
      referrer: 'https://t.co/abc',
    });
    expect(attributionOfPage(undefined)).toBeNull();
    expect(attributionOfPage('not a url')).toBeNull();
  });
});
