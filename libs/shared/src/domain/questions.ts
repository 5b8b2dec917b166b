import { isStorableText, textLength, UNSTORABLE_TEXT } from './text';

/** The kinds of question a product's sign-up may ask; a checkbox is a yes/no, such as consent. */
export const QUESTION_TYPES = ['short_text', 'long_text', 'single_choice', 'multiple_choice', 'checkbox'] as const;
export type QuestionType = (typeof QUESTION_TYPES)[number];

export interface Question {
  /** The stable name of its answer: a slug, so that it reads well in JSON, CSV headers and URLs. */
  key: string;
  type: QuestionType;
  required: boolean;
  label: string;
  /** The choices offered (single_choice and multiple_choice only). */
  choices?: string[];
  /**
   * Its words in other languages, by locale, each optional: the label, and the choices' words in the
   * choices' order (an answer is still the choice itself). Absent: the words above in every language.
   */
  labels?: Partial<Record<string, { label?: string; choices?: string[] }>>;
}

/** A question's words for a visitor of this locale: its label and its choices' words (in the choices' order), else the default words. */
export function questionWords(question: Question, locale: string): { label: string; choices: string[] } {
  const own = question.labels?.[locale];
  return { label: own?.label || question.label, choices: (question.choices ?? []).map((choice, index) => own?.choices?.[index] || choice) };
}

export type Answer = string | string[] | boolean;
export type Answers = Record<string, Answer>;

export const QUESTION_LIMITS = { questions: 10, key: 40, label: 200, shortText: 200, longText: 2000, choices: 20, choice: 100 } as const;
export const QUESTION_KEY = /^[a-z][a-z0-9_-]*$/;

/** The answers as stored, or the first refused: the question's key (null for the whole object) and why, in one clause. */
export type CheckedAnswers = { answers: Answers } | { problem: { key: string | null; message: string } };

/** How the answers arrived: JSON keeps its types; an HTML form posts text only (a ticked box as any value, one choice as one string). */
export type AnswersFrom = 'json' | 'form';

/**
 * The answers of a sign-up, checked against the product's questions, or the first problem. Absent
 * answers are no answers; optional text left empty is no answer; a product without questions takes
 * nothing but no answers at all.
 */
export function checkAnswers(questions: Question[], raw: unknown, from: AnswersFrom = 'json'): CheckedAnswers {
  if (raw === undefined) raw = {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { problem: { key: null, message: 'expected an object of answers keyed by question key' } };
  const given = raw as Record<string, unknown>;
  const unknownKey = Object.keys(given).find((key) => !questions.some((question) => question.key === key));
  if (unknownKey !== undefined) return { problem: { key: unknownKey, message: 'no question has this key' } };
  const answers: Answers = {};
  for (const question of questions) {
    // Own keys only: a question keyed "constructor" must not read Object.prototype's. A form leaves an unticked box out.
    const own = Object.hasOwn(given, question.key) ? given[question.key] : undefined;
    const value = from === 'form' && question.type === 'checkbox' && own === undefined ? '' : own;
    const answer = answerTo(question, value, from);
    const problem = (message: string) => ({ problem: { key: question.key, message } });
    if (typeof answer === 'object' && !Array.isArray(answer)) return problem(answer.problem);
    if (answer === undefined) {
      if (question.required) return problem(`"${question.label}" needs an answer`);
      continue;
    }
    if (question.type === 'checkbox' && question.required && answer !== true) return problem(`"${question.label}" must be ticked`);
    answers[question.key] = answer;
  }
  return { answers };
}

/** One answer as stored, undefined for none, or why it is refused. */
function answerTo(question: Question, value: unknown, from: AnswersFrom): Answer | undefined | { problem: string } {
  if (value === undefined || value === null) return undefined;
  switch (question.type) {
    case 'short_text':
    case 'long_text': {
      if (typeof value !== 'string') return { problem: 'expected text' };
      const text = value.trim();
      const max = question.type === 'short_text' ? QUESTION_LIMITS.shortText : QUESTION_LIMITS.longText;
      // Line breaks belong in a long answer only; other control characters in none (a NUL cannot even be stored).
      const controls = question.type === 'long_text' ? /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/ : /\p{Cc}/u;
      if (controls.test(text)) return { problem: 'cannot hold control characters' };
      if (!isStorableText(text)) return { problem: UNSTORABLE_TEXT };
      if (textLength(text) > max) return { problem: `is at most ${max.toLocaleString('en-US')} characters` };
      return text === '' ? undefined : text;
    }
    case 'single_choice':
      if (typeof value !== 'string') return { problem: 'expected one of the choices as text' };
      if (value === '' && from === 'form') return undefined;
      return question.choices?.includes(value) ? value : { problem: 'is not one of the choices offered' };
    case 'multiple_choice': {
      const picked = from === 'form' && typeof value === 'string' ? [value] : value;
      if (!Array.isArray(picked) || !picked.every((item) => typeof item === 'string')) return { problem: 'expected a list of the choices' };
      if (picked.some((item) => !question.choices?.includes(item))) return { problem: 'holds a choice that is not offered' };
      if (new Set(picked).size < picked.length) return { problem: 'names a choice twice' };
      return picked.length ? (picked as string[]) : undefined;
    }
    case 'checkbox':
      if (from === 'form') return typeof value === 'string' ? value !== '' : { problem: 'expected the box ticked or not' };
      return typeof value === 'boolean' ? value : { problem: 'expected true or false' };
  }
}
