import { ATTRIBUTION_FIELDS, html, Question, SafeHtml } from '@app/shared';
import type { EntryDetails } from '../../entries/profile.service';

/** The list's filters on answers and attribution: a UTM source or campaign, and a question with its answer. */
export function detailFilterFields(questions: Question[], values: Record<string, string>): SafeHtml {
  return html`<input type="search" name="utm_source" placeholder="utm_source" value="${values.utm_source ?? ''}" style="width:9rem">
  <input type="search" name="utm_campaign" placeholder="utm_campaign" value="${values.utm_campaign ?? ''}" style="width:9rem">
  ${questions.length ? html`<select name="question" aria-label="Question"><option value="">Any answer</option>${questions.map(
    (question) => html`<option value="${question.key}"${new SafeHtml(values.question === question.key ? ' selected' : '')}>${question.label}</option>`,
  )}</select> <input type="search" name="answer" placeholder="answer" aria-label="Answer" value="${values.answer ?? ''}" style="width:9rem">` : ''}`;
}

/** The same filters again, hidden, for a form that acts on the filtered list. */
export const hiddenDetailFilters = (values: Record<string, string>): SafeHtml[] =>
  Object.entries(values).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);

/** The entry's answers under the questions' labels (a question since removed under its key), and where it came from. */
export function detailsTables(questions: Question[], details: EntryDetails | undefined): SafeHtml | string {
  if (!details) return html`<h2>Answers and attribution</h2><p class="muted">None: no answers, and nothing known about where this sign-up came from.</p>`;
  const label = (key: string) => questions.find((question) => question.key === key)?.label ?? key;
  const shown = (answer: string | string[] | boolean) => (typeof answer === 'boolean' ? (answer ? 'yes' : 'no') : Array.isArray(answer) ? answer.join(', ') : answer);
  const answers = Object.entries(details.answers);
  const attribution = ATTRIBUTION_FIELDS.flatMap((field) => (details.attribution[field] ? [[field, details.attribution[field]] as const] : []));
  return html`<h2>Answers</h2>
${answers.length ? html`<div class="scroll"><table class="fields">${answers.map(([key, answer]) => html`<tr><th>${label(key)}</th><td style="white-space:pre-wrap">${shown(answer)}</td></tr>`)}</table></div>` : html`<p class="muted">No answers.</p>`}
<h2>Attribution</h2>
${attribution.length ? html`<div class="scroll"><table class="fields">${attribution.map(([field, value]) => html`<tr><th>${field}</th><td>${value}</td></tr>`)}</table></div>` : html`<p class="muted">Nothing known.</p>`}`;
}
