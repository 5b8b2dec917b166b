import { html, LANGUAGE_NAMES, LOCALES, MAX_MILESTONES, QUESTION_LIMITS, QUESTION_TYPES, SafeHtml } from '@app/shared';
import type { MilestoneRow, QuestionRow } from './settings-builders';
import type { SettingsFields } from './fields';

const QUESTION_TYPE_WORDS: Record<(typeof QUESTION_TYPES)[number], string> = {
  short_text: 'Short text (up to 200 characters)',
  long_text: 'Long text (up to 2,000)',
  single_choice: 'One of several choices',
  multiple_choice: 'Any of several choices',
  checkbox: 'A box to tick (such as consent)',
};

/** A row of a builder: its fields in a group named after it ("Milestone 2"), a new row named so. */
const row = (title: string, empty: boolean, fields: SafeHtml) => html`<fieldset><legend>${empty ? `${title} (new)` : title}</legend>${fields}</fieldset>`;

/**
 * A row's words in each language, folded away (no script needed) unless some are typed or refused: a
 * visitor of that language reads them, else the words above.
 */
function inLanguages(f: SettingsFields, row: object, prefix: string, fields: (locale: (typeof LOCALES)[number]) => SafeHtml): SafeHtml {
  const open = LOCALES.some((locale) => (Object.entries(row) as [string, string][]).some(([field, value]) => field.endsWith(`.${locale}`) && value.trim() !== '')) || f.refused(prefix);
  return html`<details${new SafeHtml(open ? ' open' : '')}><summary>In other languages</summary><p class="muted">Optional: a visitor whose language is one of these reads these words; an empty one shows the words above.</p>${LOCALES.map(fields)}</details>`;
}

/** The milestones' builder: a row per milestone and one empty row to add one. */
export function milestonesBuilder(f: SettingsFields, rows: MilestoneRow[]): SafeHtml {
  return html`${f.list('milestones', 'Milestone rewards', `Up to ${MAX_MILESTONES}. Reaching one moves the referrer up by its places, shows on the status page and sends entry.milestone, once per entry and milestone. Fill in the empty row to add one (save to get another); empty a row to remove it.`)}
${rows.map((typed, index) => {
  const id = (field: keyof MilestoneRow) => `milestones.${index}.${field}`;
  return row(`Milestone ${index + 1}`, !typed.referrals && !typed.name, html`${f.input(id('referrals'), 'Credited referrals', 'number', '', ' min="1" max="999999"', typed.referrals)}
${f.input(id('name'), 'Name', 'text', '', ' maxlength="60"', typed.name)}
${f.input(id('places'), 'Extra places', 'number', 'Optional; 0 when empty.', ' min="0" max="1000000"', typed.places)}
${f.input(id('message'), 'A line for the person', 'text', 'Optional, on the status page.', ' maxlength="200"', typed.message)}
${inLanguages(f, typed, `milestones.${index}.`, (locale) => html`${f.input(`milestones.${index}.name.${locale}`, `Name in ${LANGUAGE_NAMES[locale]}`, 'text', '', ' maxlength="60"', typed[`name.${locale}`])}
${f.input(`milestones.${index}.message.${locale}`, `A line in ${LANGUAGE_NAMES[locale]}`, 'text', '', ' maxlength="200"', typed[`message.${locale}`])}`)}`);
})}`;
}

/** The questions' builder: a row per question, in the order they are asked, and one empty row to add one. */
export function questionsBuilder(f: SettingsFields, rows: QuestionRow[]): SafeHtml {
  return html`${f.list('questions', 'Sign-up questions', `Up to ${QUESTION_LIMITS.questions}, in the order they are asked. The hosted form and the script-tag form ask them; the sign-up API takes them as answers. Fill in the empty row to add one (save to get another); empty a row’s key and label to remove it.`)}
${rows.map((typed, index) => {
  const id = (field: keyof QuestionRow) => `questions.${index}.${field}`;
  return row(`Question ${index + 1}`, !typed.key && !typed.label, html`${f.input(id('key'), 'Key', 'text', 'Names the answer in the API, the CSV export and webhooks’ profile reads: lowercase letters, digits, - and _. Keep it when you reword the label.', ' maxlength="40"', typed.key)}
${f.choice(id('type'), 'Type', QUESTION_TYPES.map((type) => [type, QUESTION_TYPE_WORDS[type]] as const), '', typed.type)}
${f.choice(id('need'), 'Answer', [['optional', 'Optional'], ['required', 'Required']], 'A required box must be ticked.', typed.need)}
${f.input(id('label'), 'Label', 'text', '', ' maxlength="200"', typed.label)}
${f.lines(id('choices'), 'Choices', 'One a line, 2 to 20 of up to 100 characters; for the two choice types only.', 3, typed.choices)}
${inLanguages(f, typed, `questions.${index}.`, (locale) => html`${f.input(`questions.${index}.label.${locale}`, `Label in ${LANGUAGE_NAMES[locale]}`, 'text', '', ' maxlength="200"', typed[`label.${locale}`])}
${f.lines(`questions.${index}.choices.${locale}`, `Choices in ${LANGUAGE_NAMES[locale]}`, '', 3, typed[`choices.${locale}`])}`)}`);
})}`;
}
