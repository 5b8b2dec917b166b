import { isStorableText, MAX_MILESTONES, Milestone, Question, QUESTION_LIMITS, UNSTORABLE_TEXT } from '@app/shared';
import { ApiError } from '../common/api-error';
import { questionFrom, QuestionFields, questionsProblem } from '../products/questions-form';
import { milestoneFrom, MilestoneFields, milestonesProblem } from '../referrals/milestones';
import { text } from './forms';

/**
 * The milestones' and questions' builders: a row of fields per milestone or question, named
 * `milestones.<row>.<field>`, so that a form without JavaScript adds one empty row a save. A row whose
 * fields are all empty is no row (that is how one is removed).
 */

/** A milestone row as typed. */
export type MilestoneRow = MilestoneFields;
/** A question row as typed; its choices one a line. */
export type QuestionRow = Omit<QuestionFields, 'choices'> & { choices: string };

const MILESTONE_FIELDS = ['referrals', 'name', 'places', 'message'] as const;
const QUESTION_FIELDS = ['key', 'type', 'need', 'label', 'choices'] as const;
/** Rows a form may post: the most a product has and one empty row, and room for a few more typed at once. */
const MAX_ROWS = 20;

/** The rows of a builder as posted, in the order of their numbers; rows beyond MAX_ROWS are refused. */
function rowsOf<F extends string>(body: Record<string, unknown> | undefined, list: string, fields: readonly F[]): Record<F, string>[] {
  const rows = new Map<number, Record<F, string>>();
  for (const [name, value] of Object.entries(body ?? {})) {
    const [prefix, row, field, ...rest] = name.split('.');
    if (prefix !== list || rest.length > 0 || !/^\d{1,2}$/.test(row ?? '') || !(fields as readonly string[]).includes(field ?? '')) continue;
    if (Number(row) >= MAX_ROWS) throw new ApiError('invalid_request', `At most ${MAX_ROWS} rows.`, { param: list });
    const typed = rows.get(Number(row)) ?? (Object.fromEntries(fields.map((each) => [each, ''])) as Record<F, string>);
    typed[field as F] = text(value);
    rows.set(Number(row), typed);
  }
  return [...rows.entries()].sort(([a], [b]) => a - b).map(([, typed]) => typed);
}

/** The milestone rows a form posted, as typed. */
export const milestoneRows = (body: Record<string, unknown> | undefined): MilestoneRow[] => rowsOf(body, 'milestones', MILESTONE_FIELDS);

/** The question rows a form posted, as typed. */
export const questionRows = (body: Record<string, unknown> | undefined): QuestionRow[] => rowsOf(body, 'questions', QUESTION_FIELDS);

/** Only rows with something typed in them (a question's type and need are always chosen, so they do not count). */
const typedIn = <R extends object>(rows: R[], skip: string[] = []): [R, number][] =>
  rows.map((row, index): [R, number] => [row, index]).filter(([row]) => Object.entries(row).some(([field, value]) => !skip.includes(field) && String(value).trim() !== ''));

/** Nothing, or invalid_request naming a row's field (milestones.2.name) that holds text PostgreSQL cannot store or a control character. */
function refuseControl(list: string, label: string, row: object, index: number, multiline: string[] = []): void {
  for (const [field, value] of Object.entries(row) as [string, string][]) {
    const param = `${list}.${index}.${field}`;
    if (!isStorableText(value)) throw new ApiError('invalid_request', `${label} ${index + 1} ${UNSTORABLE_TEXT}.`, { param });
    const checked = multiline.includes(field) ? value.replace(/\r?\n/g, '') : value;
    if (/\p{Cc}/u.test(checked)) throw new ApiError('invalid_request', `${label} ${index + 1} cannot hold control characters.`, { param });
  }
}

/** The milestones of the builder's rows, in ascending order, or invalid_request naming the row's field (milestones.2.name). */
export function milestonesOf(rows: MilestoneRow[]): Milestone[] {
  const milestones: Milestone[] = [];
  for (const [row, index] of typedIn(rows)) {
    refuseControl('milestones', 'Milestone', row, index);
    const milestone = milestoneFrom({ referrals: row.referrals.trim(), name: row.name.trim(), places: row.places.trim(), message: row.message.trim() });
    if (Array.isArray(milestone)) throw new ApiError('invalid_request', `Milestone ${index + 1} ${milestone[1]}.`, { param: `milestones.${index}.${milestone[0]}` });
    milestones.push(milestone);
  }
  const problem = milestonesProblem(milestones);
  if (problem) throw new ApiError('invalid_request', `${problem}.`, { param: 'milestones' });
  return milestones.sort((a, b) => a.referrals - b.referrals);
}

/** The questions of the builder's rows, in their order, or invalid_request naming the row's field (questions.0.key). */
export function questionsOf(rows: QuestionRow[]): Question[] {
  const questions: Question[] = [];
  for (const [row, index] of typedIn(rows, ['type', 'need'])) {
    refuseControl('questions', 'Question', row, index, ['choices']);
    const question = questionFrom({ key: row.key.trim(), type: row.type, need: row.need, label: row.label.trim(), choices: row.choices.split(/\r?\n/) });
    if (Array.isArray(question)) throw new ApiError('invalid_request', `Question ${index + 1} ${question[1]}.`, { param: `questions.${index}.${question[0]}` });
    questions.push(question);
  }
  const problem = questionsProblem(questions);
  if (problem) throw new ApiError('invalid_request', `${problem}.`, { param: 'questions' });
  return questions;
}

/** The builder's rows for a product's milestones, and one empty row to add one while there is room. */
export function milestoneRowsOf(milestones: Milestone[]): MilestoneRow[] {
  const rows = milestones.map(({ referrals, name, places, message }) => ({ referrals: String(referrals), name, places: places ? String(places) : '', message: message ?? '' }));
  return withEmptyRow(rows, MAX_MILESTONES, EMPTY_MILESTONE);
}

/** The builder's rows for a product's questions, and one empty row to add one while there is room. */
export function questionRowsOf(questions: Question[]): QuestionRow[] {
  const rows = questions.map(({ key, type, required, label, choices }) => ({ key, type, need: required ? 'required' : 'optional', label, choices: (choices ?? []).join('\n') }));
  return withEmptyRow(rows, QUESTION_LIMITS.questions, EMPTY_QUESTION);
}

/** Milestone rows as typed (a refused form shown again), and an empty row. */
export const typedMilestoneRows = (rows: MilestoneRow[]): MilestoneRow[] => typedRows(rows, MAX_MILESTONES, EMPTY_MILESTONE);

/** Question rows as typed (a refused form shown again), and an empty row. */
export const typedQuestionRows = (rows: QuestionRow[]): QuestionRow[] => typedRows(rows, QUESTION_LIMITS.questions, EMPTY_QUESTION, ['type', 'need']);

const EMPTY_MILESTONE: MilestoneRow = { referrals: '', name: '', places: '', message: '' };
const EMPTY_QUESTION: QuestionRow = { key: '', type: 'short_text', need: 'optional', label: '', choices: '' };

/** Rows as typed keep their numbers, which an error names; an empty row more unless one is there. */
function typedRows<R extends object>(rows: R[], max: number, empty: R, skip: string[] = []): R[] {
  return typedIn(rows, skip).length < rows.length ? rows : withEmptyRow(rows, max, empty);
}

const withEmptyRow = <R>(rows: R[], max: number, empty: R): R[] => (rows.length < max ? [...rows, empty] : rows);
