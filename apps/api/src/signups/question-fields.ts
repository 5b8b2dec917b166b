import { Attribution, html, Question, QUESTION_LIMITS, questionWords, SafeHtml, Translator } from '@app/shared';
import { answerField } from './signup-fields';

/**
 * The product's questions as the hosted form's fields, named answers[key] (signup-fields.ts reads them
 * back), in the page's language where the team gave words of it: a choice is sent as itself whatever it shows.
 */
export function questionFields(t: Translator, questions: Question[]): SafeHtml[] {
  return questions.map((question, index) => {
    const id = `q${index}`;
    const name = answerField(question.key);
    const required = new SafeHtml(question.required ? ' required' : '');
    const words = questionWords(question, t.locale);
    const label = html`${words.label}${question.required ? '' : html` <span class="muted">${t.text('page.signup.optional')}</span>`}`;
    switch (question.type) {
      case 'short_text':
        return html`<label for="${id}">${label}</label><input id="${id}" type="text" name="${name}" maxlength="${QUESTION_LIMITS.shortText}"${required}>`;
      case 'long_text':
        return html`<label for="${id}">${label}</label><textarea id="${id}" name="${name}" rows="4" maxlength="${QUESTION_LIMITS.longText}"${required}></textarea>`;
      case 'single_choice':
        return html`<label for="${id}">${label}</label><select id="${id}" name="${name}"${required}><option value="">${t.text('page.signup.choose')}</option>${(question.choices ?? []).map(
          (choice, n) => html`<option value="${choice}">${words.choices[n]}</option>`,
        )}</select>`;
      case 'multiple_choice':
        return html`<fieldset><legend>${label}</legend>${(question.choices ?? []).map(
          (choice, n) => html`<label><input type="checkbox" id="${id}-${n}" name="${name}" value="${choice}"> ${words.choices[n]}</label>`,
        )}</fieldset>`;
      case 'checkbox':
        return html`<label><input id="${id}" type="checkbox" name="${name}" value="yes"${required}> ${label}</label>`;
    }
  });
}

/** Where the person came from, carried by the form to its post: the page's own UTM parameters and URL, and the page before it. */
export function attributionFields(attribution: Attribution | null): SafeHtml[] {
  return Object.entries(attribution ?? {}).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
}
