import { html, SafeHtml } from '@app/shared';
import type { ProductPage } from '../product-page';
import type { MilestoneRow, QuestionRow } from '../settings-builders';
import { SETTINGS_SECTIONS, SettingsSection } from '../settings-sections';
import { bar, frame, Said } from './layout';
import { sectionBody } from './settings-sections';

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

/** The sections' links, on the index and on top of each section. */
const sectionLinks = (at: ProductPage, current?: SettingsSection) =>
  html`<nav class="sections" aria-label="Settings sections">${SETTINGS_SECTIONS.map(
    (section) => html`<a href="${at.base}/settings/${section.path}"${new SafeHtml(section === current ? ' class="on" aria-current="page"' : '')}>${section.title}</a>`,
  )}</nav>`;

/** The settings' index: each section, what it sets, and a link to it. */
export function settingsIndexPage(at: ProductPage): string {
  return frame(
    'Settings',
    html`<h1>Settings of ${at.product.name}</h1>
<p class="muted">Each section saves on its own. Settings are the same in live and test mode.</p>
<ul class="card settings">${SETTINGS_SECTIONS.map((section) => html`<li><a href="${at.base}/settings/${section.path}">${section.title}</a><p class="muted">${section.summary}</p></li>`)}</ul>`,
    bar(at.identity, at, 'settings'),
  );
}

/** A section of the settings: its own form, which posts its own fields and comes back here. */
export function settingsSectionPage(at: ProductPage, section: SettingsSection, form: SectionForm, said?: Said): string {
  const fields = new SettingsFields(form);
  const body = sectionBody(section, fields, form);
  const error = form.error;
  const top = !error
    ? ''
    : fields.shown.has(error.param ?? '')
      ? html`<p role="alert" class="error">Not saved: <a href="#${error.param}">${error.words}</a></p>`
      : html`<p role="alert" class="error">${error.words}</p>`;
  return frame(
    `${section.title} · Settings`,
    html`<h1>${section.title}</h1>
<p class="muted"><a href="${at.base}/settings">Settings of ${at.product.name}</a></p>
${sectionLinks(at, section)}
${top}
<form method="post" action="${at.base}/settings/${section.path}" class="card settings"><input type="hidden" name="_csrf" value="${at.identity.csrfToken}">
${body}
<button type="submit">Save</button></form>`,
    bar(at.identity, at, 'settings'),
    said,
  );
}
