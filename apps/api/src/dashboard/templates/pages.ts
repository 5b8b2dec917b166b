import { html, Locale, LOCALES, MAIL_KINDS, MailKind, MailTemplate, REQUIRED_LINK, SafeHtml, TEMPLATE_VARIABLES, TemplateSource } from '@app/shared';
import type { Notice } from '../auth/notice';
import type { ProductPage } from '../shared/product-page';
import { askFirst, bar, confirmationPage, frame, when } from '../shared/layout';
import { PREVIEW_SCRIPT } from './template-preview';

/** A template's language in a URL: a locale, or 'all' for the template of every language. */
export type LocaleSlot = Locale | 'all';

const KIND_WORDS: Record<MailKind, string> = {
  confirmation: 'Confirmation mail',
  invitation: 'Invitation mail',
  reminder: 'Claim window reminder',
};
const LOCALE_WORDS: Record<LocaleSlot, string> = { all: 'Every language', en: 'English', de: 'Deutsch', fr: 'Français', es: 'Español' };
const SLOTS: LocaleSlot[] = ['all', ...LOCALES];

const slotOf = (template: MailTemplate): LocaleSlot => template.locale ?? 'all';

/** Every kind of mail with its templates by language, each a link to its editor. */
export function templatesPage(at: ProductPage, templates: MailTemplate[]): string {
  const base = `${at.base}/templates`;
  const rows = MAIL_KINDS.map((kind) => {
    const cells = SLOTS.map((slot) => {
      const own = templates.find((template) => template.kind === kind && slotOf(template) === slot);
      return html`<td><a href="${base}/${kind}/${slot}">${own ? 'Own template' : 'Default'}</a>${own ? html`<br><span class="muted">${when(own.updatedAt)}</span>` : ''}</td>`;
    });
    return html`<tr><th>${KIND_WORDS[kind]}</th>${cells}</tr>`;
  });
  return frame(
    'Mail templates',
    html`<h1>Mail templates of ${at.product.name}</h1>
<p class="muted">A mail goes out in its entry’s language with the template for that language, else with the template for every language, else as the service’s default mail. The unsubscribe link and headers are added to every mail. Templates are the same in live and test mode.</p>
<div class="scroll"><table><tr><th>Mail</th>${SLOTS.map((slot) => html`<th>${LOCALE_WORDS[slot]}</th>`)}</tr>${rows}</table></div>`,
    bar(at.identity, at, 'templates'),
  );
}

export interface EditorState {
  kind: MailKind;
  slot: LocaleSlot;
  /** The template as saved or as typed, or the starter where there is none. */
  source: TemplateSource;
  /** Whether the slot has a template of its own (reset is offered). */
  saved: boolean;
  preview?: TemplateSource;
  error?: string;
  notice?: Notice;
}

/** What a save of the slot's template changed. */
export const savedWords = (kind: MailKind, slot: LocaleSlot): string => `Saved: the next ${kind} mails in ${LOCALE_WORDS[slot].toLowerCase()} use it.`;

/** One template's editor: its fields, the variables it may use, the live preview, test send and reset. */
export function templateEditor(at: ProductPage, state: EditorState): string {
  const { kind, slot, source, notice } = state;
  const base = `${at.base}/templates/${kind}/${slot}`;
  const variables = Object.entries(TEMPLATE_VARIABLES[kind]).map(([name, variable]) => html`<tr><th><code>{{ ${name} }}</code></th><td>${variable.about}</td></tr>`);
  const tabs = SLOTS.map((other) => html`<a class="${other === slot ? 'on' : ''}" href="${at.base}/templates/${kind}/${other}">${LOCALE_WORDS[other]}</a>`);
  const field = (name: keyof TemplateSource, label: string, rows: number) =>
    name === 'subject'
      ? html`<label for="subject">${label}</label><input id="subject" name="subject" value="${source.subject}" maxlength="300" required>`
      : html`<label for="${name}">${label}</label><textarea id="${name}" name="${name}" rows="${rows}" style="width:100%;box-sizing:border-box;font-family:ui-monospace,monospace">${source[name]}</textarea>`;
  return frame(
    KIND_WORDS[kind],
    html`<h1>${KIND_WORDS[kind]} of ${at.product.name}</h1>
<nav style="margin-bottom:1rem">${tabs}</nav>
<p class="muted">${state.saved ? 'This language has a template of its own.' : 'No template of its own yet: the fields start from the default mail.'} The text and the HTML must both show <code>{{ ${REQUIRED_LINK[kind]} }}</code>. Liquid tags work (if, for, assign, filters); include, render and layout do not. The HTML escapes every value.</p>
<form id="template" method="post" action="${base}" data-preview="${base}/preview" class="card settings" style="max-width:none">
<input type="hidden" name="_csrf" value="${at.identity.csrfToken}">
${field('subject', 'Subject', 1)}
${field('text', 'Text', 10)}
${field('html', 'HTML', 14)}
<p><button type="submit">Save</button> <button type="submit" class="secondary" formaction="${base}/test">Send a test to ${at.identity.user.email}</button>
${state.saved ? askFirst(`${base}/reset`, 'Back to the default') : ''}</p></form>
<h2>Preview: the mail as it would go out now</h2>
<p role="alert" id="preview-error" style="color:#cf222e"></p>
<div class="card"><p><strong>Subject:</strong> <span id="preview-subject">${state.preview?.subject ?? ''}</span></p>
<pre id="preview-text" style="white-space:pre-wrap;overflow-wrap:anywhere">${state.preview?.text ?? ''}</pre>
<iframe id="preview-html" title="The HTML part" sandbox="" style="width:100%;height:24rem;border:1px solid #d0d7de;border-radius:6px;background:#fff" srcdoc="${state.preview?.html ?? ''}"></iframe></div>
<h2>Variables</h2>
<table class="fields">${variables}</table>
<script>${new SafeHtml(PREVIEW_SCRIPT)}</script>`,
    bar(at.identity, at, 'templates'),
    state.error ? { refused: state.error } : notice,
  );
}

export function resetTemplatePage(at: ProductPage, kind: MailKind, slot: LocaleSlot): string {
  const base = `${at.base}/templates/${kind}/${slot}`;
  const instead = slot === 'all' ? 'the service’s default mail' : 'the template for every language if there is one, else the service’s default mail';
  return confirmationPage(at, 'templates', {
    title: 'Back to the default?',
    lost: html`<p>The ${KIND_WORDS[kind].toLowerCase()}’s template for ${LOCALE_WORDS[slot].toLowerCase()} will be deleted for good: its subject, text and HTML cannot be brought back. The next mails use ${instead}.</p>`,
    action: `${base}/reset`,
    button: 'Delete the template',
    back: base,
  });
}
