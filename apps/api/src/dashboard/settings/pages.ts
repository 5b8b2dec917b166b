import { html, SafeHtml } from '@app/shared';
import type { ProductPage } from '../shared/product-page';
import { SETTINGS_SECTIONS, SettingsSection } from './settings-sections';
import { bar, frame, Said } from '../shared/layout';
import { SectionForm, SettingsFields } from './fields';
import { sectionBody } from './section-forms';

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
