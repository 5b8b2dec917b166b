import { isStorableText, LANGUAGE_NAMES, LOCALES, MAX_MILESTONES, Milestone, Question, QUESTION_LIMITS, UNSTORABLE_TEXT } from '@app/shared';
import { ApiError } from '../../common/api-error';
import { questionFrom, QuestionFields, questionsProblem } from '../../products/questions-form';
import { milestoneFrom, MilestoneFields, milestonesProblem } from '../../referrals/milestones';
import { text } from '../shared/forms';

/**
 * The milestones' and questions' builders: a row of fields per milestone or question, named
 * `milestones.<row>.<field>` (`milestones.<row>.name.de` for a word in another language), so that a form
 * without JavaScript adds one empty row a save. A row whose fields are all empty is no row (that is how
 * one is removed).
 */

type InEachLocale<F extends string> = `${F}.${(typeof LOCALES)[number]}`;
const inEachLocale = <F extends string>(...fields: F[]) => LOCALES.flatMap((locale) => fields.map((field) => `${field}.${locale}` as InEachLocale<F>));

/** A milestone row as typed, with its name and line in each language. */
export type MilestoneRow = MilestoneFields & Record<InEachLocale<'name' | 'message'>, string>;
/** A question row as typed; its choices one a line, and its label and choices' words in each language. */
export type QuestionRow = Omit<QuestionFields, 'choices'> & { choices: string } & Record<InEachLocale<'label' | 'choices'>, string>;

const MILESTONE_FIELDS = ['referrals', 'name', 'places', 'message', ...inEachLocale('name', 'message')] as const;
const QUESTION_FIELDS = ['key', 'type', 'need', 'label', 'choices', ...inEachLocale('label', 'choices')] as const;
/** Rows a form may post: the most a product has and one empty row, and room for a few more typed at once. */
const MAX_ROWS = 20;

/** The rows of a builder as posted, in the order of their numbers; rows beyond MAX_ROWS are refused. */
function rowsOf<F extends string>(body: Record<string, unknown> | undefined, list: string, fields: readonly F[]): Record<F, string>[] {
  const rows = new Map<number, Record<F, string>>();
  for (const [name, value] of Object.entries(body ?? {})) {
    const [prefix, row, ...rest] = name.split('.');
    const field = rest.join('.');
    if (prefix !== list || !/^\d{1,2}$/.test(row ?? '') || !(fields as readonly string[]).includes(field)) continue;
    if (Number(row) >= MAX_ROWS) throw new ApiError('invalid_request', `At most ${MAX_ROWS} rows.`, { param: list });
    const typed = rows.get(Number(row)) ?? emptyOf(fields);
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
    const labels = milestoneLabels(row, index);
    milestones.push(labels ? { ...milestone, labels } : milestone);
  }
  const problem = milestonesProblem(milestones);
  if (problem) throw new ApiError('invalid_request', `${problem}.`, { param: 'milestones' });
  return milestones.sort((a, b) => a.referrals - b.referrals);
}

/** The questions of the builder's rows, in their order, or invalid_request naming the row's field (questions.0.key). */
export function questionsOf(rows: QuestionRow[]): Question[] {
  const questions: Question[] = [];
  for (const [row, index] of typedIn(rows, ['type', 'need'])) {
    refuseControl('questions', 'Question', row, index, ['choices', ...inEachLocale('choices')]);
    const question = questionFrom({ key: row.key.trim(), type: row.type, need: row.need, label: row.label.trim(), choices: row.choices.split(/\r?\n/) });
    if (Array.isArray(question)) throw new ApiError('invalid_request', `Question ${index + 1} ${question[1]}.`, { param: `questions.${index}.${question[0]}` });
    const labels = questionLabels(row, index, question);
    questions.push(labels ? { ...question, labels } : question);
  }
  const problem = questionsProblem(questions);
  if (problem) throw new ApiError('invalid_request', `${problem}.`, { param: 'questions' });
  return questions;
}

const tooLong = (what: string, index: number, words: string, param: string) => new ApiError('invalid_request', `${what} ${index + 1} ${words}.`, { param });

/** A milestone row's name and line in other languages, each optional; none when none is typed. */
function milestoneLabels(row: MilestoneRow, index: number): Milestone['labels'] {
  const labels: NonNullable<Milestone['labels']> = {};
  for (const locale of LOCALES) {
    const [name, message] = [row[`name.${locale}`].trim(), row[`message.${locale}`].trim()];
    if (name.length > 60) throw tooLong('Milestone', index, `has a name in ${LANGUAGE_NAMES[locale]} over 60 characters`, `milestones.${index}.name.${locale}`);
    if (message.length > 200) throw tooLong('Milestone', index, `has a line in ${LANGUAGE_NAMES[locale]} over 200 characters`, `milestones.${index}.message.${locale}`);
    if (name || message) labels[locale] = { ...(name ? { name } : {}), ...(message ? { message } : {}) };
  }
  return Object.keys(labels).length ? labels : undefined;
}

/** A question row's label and choices' words in other languages, each optional (an empty line keeps that choice's own words); none when none is typed. */
function questionLabels(row: QuestionRow, index: number, question: Question): Question['labels'] {
  const labels: NonNullable<Question['labels']> = {};
  for (const locale of LOCALES) {
    const label = row[`label.${locale}`].trim();
    const choices = row[`choices.${locale}`].split(/\r?\n/).map((choice) => choice.trim());
    while (choices.length && !choices[choices.length - 1]) choices.pop();
    const language = LANGUAGE_NAMES[locale];
    if (label.length > QUESTION_LIMITS.label) throw tooLong('Question', index, `has a label in ${language} over ${QUESTION_LIMITS.label} characters`, `questions.${index}.label.${locale}`);
    if (choices.length > (question.choices?.length ?? 0)) throw tooLong('Question', index, `has more choices in ${language} than choices`, `questions.${index}.choices.${locale}`);
    if (choices.some((choice) => choice.length > QUESTION_LIMITS.choice)) throw tooLong('Question', index, `has a choice in ${language} over ${QUESTION_LIMITS.choice} characters`, `questions.${index}.choices.${locale}`);
    if (label || choices.length) labels[locale] = { ...(label ? { label } : {}), ...(choices.length ? { choices } : {}) };
  }
  return Object.keys(labels).length ? labels : undefined;
}

/** The builder's rows for a product's milestones, and one empty row to add one while there is room. */
export function milestoneRowsOf(milestones: Milestone[]): MilestoneRow[] {
  const rows = milestones.map(({ referrals, name, places, message, labels }) => ({
    ...EMPTY_MILESTONE,
    ...Object.fromEntries(LOCALES.flatMap((locale) => [[`name.${locale}`, labels?.[locale]?.name ?? ''], [`message.${locale}`, labels?.[locale]?.message ?? '']])),
    ...{ referrals: String(referrals), name, places: places ? String(places) : '', message: message ?? '' },
  }));
  return withEmptyRow(rows, MAX_MILESTONES, EMPTY_MILESTONE);
}

/** The builder's rows for a product's questions, and one empty row to add one while there is room. */
export function questionRowsOf(questions: Question[]): QuestionRow[] {
  const rows = questions.map(({ key, type, required, label, choices, labels }) => ({
    ...EMPTY_QUESTION,
    ...Object.fromEntries(LOCALES.flatMap((locale) => [[`label.${locale}`, labels?.[locale]?.label ?? ''], [`choices.${locale}`, (labels?.[locale]?.choices ?? []).join('\n')]])),
    ...{ key, type, need: required ? 'required' : 'optional', label, choices: (choices ?? []).join('\n') },
  }));
  return withEmptyRow(rows, QUESTION_LIMITS.questions, EMPTY_QUESTION);
}

/** Milestone rows as typed (a refused form shown again), and an empty row. */
export const typedMilestoneRows = (rows: MilestoneRow[]): MilestoneRow[] => typedRows(rows, MAX_MILESTONES, EMPTY_MILESTONE);

/** Question rows as typed (a refused form shown again), and an empty row. */
export const typedQuestionRows = (rows: QuestionRow[]): QuestionRow[] => typedRows(rows, QUESTION_LIMITS.questions, EMPTY_QUESTION, ['type', 'need']);

const emptyOf = <F extends string>(fields: readonly F[]) => Object.fromEntries(fields.map((field) => [field, ''])) as Record<F, string>;
const EMPTY_MILESTONE: MilestoneRow = emptyOf(MILESTONE_FIELDS);
const EMPTY_QUESTION: QuestionRow = { ...emptyOf(QUESTION_FIELDS), type: 'short_text', need: 'optional' };

/** Rows as typed keep their numbers, which an error names; an empty row more unless one is there. */
function typedRows<R extends object>(rows: R[], max: number, empty: R, skip: string[] = []): R[] {
  return typedIn(rows, skip).length < rows.length ? rows : withEmptyRow(rows, max, empty);
}

const withEmptyRow = <R>(rows: R[], max: number, empty: R): R[] => (rows.length < max ? [...rows, empty] : rows);
