import { html, SafeHtml } from '@app/shared';
import type { MilestoneRow, QuestionRow } from './settings-builders';

/** A section's form as shown: its fields as text, the builders' rows, and a refusal with the field it names. */
export interface SectionForm {
  values: Record<string, string>;
  milestones: MilestoneRow[];
  questions: QuestionRow[];
  error?: { words: string; param?: string };
}

/**
 * A form's controls, each with its label, its hint and, when the refusal names it, its error beside it,
 * tied to the control by aria-describedby so that a screen reader reads both.
 */
export class SettingsFields {
  constructor(private readonly form: SectionForm) {}

  /** Whether a control of this id is on the page: else the error shows on top. */
  readonly shown = new Set<string>();

  /** The control's attributes and the error after it, for the control of this id. */
  private described(id: string, hint: boolean): { attributes: SafeHtml; error: SafeHtml | string } {
    this.shown.add(id);
    const error = this.form.error?.param === id ? this.form.error.words : undefined;
    const ids = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
    return {
      // autofocus: a refused form opens at the field to change, not at the top (no script needed).
      attributes: html`${ids ? html` aria-describedby="${ids}"` : ''}${error ? new SafeHtml(' aria-invalid="true" autofocus') : ''}`,
      error: error ? html`<p class="error" id="${id}-error">${error}</p>` : '',
    };
  }

  private hint = (id: string, words: string) => (words ? html`<p class="muted" id="${id}-hint">${words}</p>` : '');

  value = (id: string): string => this.form.values[id] ?? '';

  /** Whether the refusal names a field under this prefix (milestones.2.). */
  refused = (prefix: string): boolean => this.form.error?.param?.startsWith(prefix) ?? false;

  input(id: string, label: string, type: string, hint: string, extra = '', value = this.value(id)): SafeHtml {
    const { attributes, error } = this.described(id, Boolean(hint));
    return html`<label for="${id}">${label}</label><input id="${id}" name="${id}" type="${type}" value="${value}"${new SafeHtml(extra)}${attributes}>${error}${this.hint(id, hint)}`;
  }

  choice(id: string, label: string, options: readonly (readonly [string, string])[], hint: string, value = this.value(id)): SafeHtml {
    const { attributes, error } = this.described(id, Boolean(hint));
    return html`<label for="${id}">${label}</label><select id="${id}" name="${id}"${attributes}>${options.map(
      ([option, words]) => html`<option value="${option}"${new SafeHtml(value === option ? ' selected' : '')}>${words}</option>`,
    )}</select>${error}${this.hint(id, hint)}`;
  }

  lines(id: string, label: string, hint: string, rows = 3, value = this.value(id)): SafeHtml {
    const { attributes, error } = this.described(id, Boolean(hint));
    return html`<label for="${id}">${label}</label><textarea id="${id}" name="${id}" rows="${rows}"${attributes}>${value}</textarea>${error}${this.hint(id, hint)}`;
  }

  /** A builder's heading: a list-wide refusal (too many, a key twice) shows under it. */
  list(id: string, title: string, hint: string): SafeHtml {
    this.shown.add(id);
    const error = this.form.error?.param === id ? this.form.error.words : undefined;
    return html`<h2 id="${id}">${title}</h2>${error ? html`<p class="error" id="${id}-error" role="alert">${error}</p>` : ''}<p class="muted">${hint}</p>`;
  }
}
