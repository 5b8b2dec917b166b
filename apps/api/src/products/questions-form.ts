import { Question, QUESTION_KEY, QUESTION_LIMITS, QUESTION_TYPES, QuestionType } from '@app/shared';
import { z } from 'zod';

const { questions: MAX, key: KEY_MAX, label: LABEL_MAX, choices: CHOICES_MAX, choice: CHOICE_MAX } = QUESTION_LIMITS;
const isType = (type: string): type is QuestionType => (QUESTION_TYPES as readonly string[]).includes(type);
const hasChoices = (type: QuestionType) => type === 'single_choice' || type === 'multiple_choice';

/** A question's fields as typed, in the settings' builder or as the parts of a line; choices one an item. */
export interface QuestionFields {
  key: string;
  type: string;
  need: string;
  label: string;
  choices: string[];
}

/** One question from its typed fields, or the field refused and why, in a clause. */
export function questionFrom({ key, type, need, label, choices }: QuestionFields): Question | [keyof QuestionFields, string] {
  if (key.length > KEY_MAX || !QUESTION_KEY.test(key)) return ['key', `needs a key of 1 to ${KEY_MAX} lowercase letters, digits, - and _, starting with a letter`];
  if (!isType(type)) return ['type', `has an unknown type; use ${QUESTION_TYPES.join(', ')}`];
  if (need !== 'required' && need !== 'optional') return ['need', 'must say required or optional'];
  if (label.length < 1 || label.length > LABEL_MAX) return ['label', `needs a label of 1 to ${LABEL_MAX} characters`];
  const offered = choices.map((choice) => choice.trim()).filter(Boolean);
  if (!hasChoices(type)) return offered.length ? ['choices', 'offers choices, which only single_choice and multiple_choice have'] : { key, type, required: need === 'required', label };
  if (offered.length < 2 || offered.length > CHOICES_MAX) return ['choices', `needs 2 to ${CHOICES_MAX} choices`];
  if (offered.some((choice) => choice.length > CHOICE_MAX)) return ['choices', `has a choice over ${CHOICE_MAX} characters`];
  if (new Set(offered).size < offered.length) return ['choices', 'offers a choice twice'];
  return { key, type, required: need === 'required', label, choices: offered };
}

/** One question as `products update` writes it: `key | type | required or optional | label | choice; choice`. */
function questionOf(line: string): Question | string {
  const [key = '', type = '', need = '', label = '', choices = '', ...rest] = line.split('|').map((part) => part.trim());
  if (rest.length > 0) return 'has more than five parts';
  const question = questionFrom({ key, type, need, label, choices: choices.split(';') });
  if (!Array.isArray(question)) return question;
  return question[0] === 'choices' && question[1].startsWith('needs') ? `${question[1]}, separated by ;` : question[1];
}

/** A product's questions as text, one a line, in the order they are asked; at most ten, each key once. */
export const QUESTIONS_FORM = z
  .string()
  .refine((text) => !/\p{Cc}/u.test(text.replace(/\r?\n/g, '')), 'Questions cannot hold control characters')
  .transform((text, context) => {
    const lines = text.split(/\r?\n/).map((line) => line.trim()).filter(Boolean);
    const questions: Question[] = [];
    for (const [index, line] of lines.entries()) {
      const question = questionOf(line);
      if (typeof question === 'string') {
        context.addIssue({ code: 'custom', message: `Question ${index + 1} ${question}` });
        return z.NEVER;
      }
      questions.push(question);
    }
    const problem = questionsProblem(questions);
    if (problem) context.addIssue({ code: 'custom', message: problem });
    return questions;
  });

/** What is wrong with a product's questions as a whole (too many, a key twice), if anything. */
export function questionsProblem(questions: Question[]): string | undefined {
  if (questions.length > MAX) return `A product asks at most ${MAX} questions`;
  if (new Set(questions.map((question) => question.key)).size < questions.length) return 'Each question needs a key of its own';
  return undefined;
}

/** Questions as the settings form shows them. */
export const questionsAsText = (questions: Question[]): string =>
  questions
    .map(({ key, type, required, label, choices }) => [key, type, required ? 'required' : 'optional', label, ...(choices ? [choices.join('; ')] : [])].join(' | '))
    .join('\n');
