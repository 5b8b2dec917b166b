import { html, SafeHtml } from '@app/shared';
import { IMPORT_FIELDS, ImportField } from '../../imports/formats/format';
import type { ImportReport } from '../../imports/imports.dto';
import type { HeldFile } from '../../imports/held-uploads';
import { counted } from '../shared/messages';
import type { FileColumns, ImportFields } from '../auth/notice';
import type { ProductPage } from '../shared/product-page';
import { bar, frame, Said, when } from '../shared/layout';

export interface ImportView {
  /** The dry run's report, to be confirmed by importing the same file. */
  report?: ImportReport;
  /** The held file's columns, to pick a field for each. */
  columns?: FileColumns;
  /** The uploaded file, held on the server: the picker's and the import's forms carry its id. */
  held?: HeldFile;
  /** What the last action said: why the file or a field was refused, in words. */
  said?: Said;
}

export const NO_FIELDS: ImportFields = { picks: [], state: 'confirmed', confirmationMails: false, events: false };

/** What each field is, beside its name, in the picker's choices. */
const FIELD_WORDS: Record<ImportField, string> = {
  email: 'email: the address',
  createdAt: 'createdAt: the sign-up time',
  referralCode: 'referralCode: their referral code',
  referredBy: "referredBy: the referrer's code or id",
  referralCount: 'referralCount: how many they referred',
  state: 'state: confirmed or pending',
  id: "id: the row's id in the old tool",
};

const ticked = (on: boolean) => new SafeHtml(on ? ' checked' : '');

/** The upload: the CSRF token goes in the action's query, as the body is the file, read as a stream. */
function uploadForm(at: ProductPage): SafeHtml {
  const action = `${at.base}/entries/import?${new URLSearchParams({ _csrf: at.identity.csrfToken }).toString()}`;
  return html`<form method="post" action="${action}" enctype="multipart/form-data" class="card">
<p><label>CSV file <input type="file" name="file" accept=".csv,text/csv" required></label></p>
<p><button type="submit" class="secondary">Show the columns</button></p></form>`;
}

/** A form of the held file's next step (its dry run or its import): it carries the file's id, never the file. */
function heldForm(at: ProductPage, held: HeldFile, dryRun: boolean, fields: SafeHtml, button: SafeHtml): SafeHtml {
  return html`<form method="post" action="${at.base}/entries/import/staged" class="card"><input type="hidden" name="_csrf" value="${at.identity.csrfToken}">
<input type="hidden" name="upload" value="${held.id}"><input type="hidden" name="dryRun" value="${String(dryRun)}">${fields}
<p>${button}</p></form>`;
}

/** Which file the page is about, and until when the server holds it. */
const heldLine = (held: HeldFile) =>
  html`<p class="muted wrap">${held.name || 'The file'} (SHA-256 ${held.sha256.slice(0, 12)}…) is held on the server until ${when(held.expiresAt)}, then removed; it is removed as soon as it is imported.</p>`;

/** The options of a dry run and its import. */
function optionsOf(fields: ImportFields): SafeHtml {
  return html`<p><label>Rows without a state join as <select name="state">${(['confirmed', 'pending'] as const).map(
    (state) => html`<option value="${state}"${new SafeHtml(fields.state === state ? ' selected' : '')}>${state === 'confirmed' ? 'confirmed (in line)' : 'pending (asked to confirm)'}</option>`,
  )}</select></label></p>
<p><label><input type="checkbox" name="confirmationMails" value="true"${ticked(fields.confirmationMails)}> Send a confirmation mail to pending entries</label>
<label><input type="checkbox" name="events" value="true"${ticked(fields.events)}> Send entry.created and entry.confirmed to webhooks</label></p>`;
}

/**
 * The file's columns, each a card with its header, its first rows and the field picked for it: cards,
 * not a table's row, so that on a phone the choice stays in sight beside the rows it is made for.
 */
function pickerOf(columns: FileColumns, fields: ImportFields): SafeHtml {
  return html`<div id="columns" style="display:grid;grid-template-columns:repeat(auto-fill,minmax(16rem,1fr));gap:.8rem">${columns.header.map(
    (name, index) => html`<div class="card"><strong class="wrap">${name}</strong>
<p class="muted wrap" style="margin:.3rem 0">${columns.rows.map((row, at) => html`${at ? html`<br>` : ''}${row[index] ?? ''}`)}</p>
<select name="column${index}" aria-label="Field of column ${name}" style="width:100%;box-sizing:border-box"><option value="">— not imported —</option>${IMPORT_FIELDS.map(
      (field) => html`<option value="${field}"${new SafeHtml(fields.picks[index] === field ? ' selected' : '')}>${FIELD_WORDS[field]}</option>`,
    )}</select></div>`,
  )}</div>`;
}

/** The picker, with the options, for the dry run of the held file. */
function pickerForm(at: ProductPage, held: HeldFile, columns: FileColumns, fields: ImportFields): SafeHtml {
  return heldForm(at, held, true, html`${pickerOf(columns, fields)}${optionsOf(fields)}`, html`<button type="submit" class="primary">Check the file (dry run)</button>`);
}

/** The import of the held file the dry run checked, read with the same fields and options. */
function importForm(at: ProductPage, held: HeldFile, fields: ImportFields, checked: ImportReport): SafeHtml {
  return heldForm(
    at,
    held,
    false,
    html`<input type="hidden" name="checksum" value="${checked.checksum}">${fields.picks.map((pick, index) => html`<input type="hidden" name="column${index}" value="${pick}">`)}${optionsOf(fields)}`,
    html`<button type="submit" class="primary">${counted('Import {created, plural, one {# entry} other {# entries}}', { created: checked.created })}</button>`,
  );
}

function reportOf(report: ImportReport): SafeHtml {
  const more = report.rows > report.lines.length ? html`<p class="muted">The first ${report.lines.length} of ${report.rows} rows.</p>` : '';
  const moreProblems = report.invalid > report.problems.length ? html`<p class="muted">The first ${report.problems.length} of ${report.invalid} bad rows.</p>` : '';
  return html`<div class="card"><p>${counted('{rows, plural, one {# row} other {# rows}}', { rows: report.rows })} of a <strong>${report.format}</strong> export:
<strong>${report.created}</strong> new (${report.confirmed} in line, ${report.pending} pending), ${report.existing} already here,
${report.suppressed} deleted or unsubscribed before (skipped), <strong>${report.invalid}</strong> bad.</p>
${report.problems.length ? html`<h2>Bad rows</h2><div class="scroll"><table><tr><th>Line</th><th>Reason</th></tr>${report.problems.map(
    (problem) => html`<tr><td>${problem.line}</td><td>${problem.message}</td></tr>`,
  )}</table></div>${moreProblems}` : ''}
<h2>Rows</h2><div class="scroll"><table><tr><th>Line</th><th>Email</th><th>Will be</th></tr>${report.lines.map(
    (line) => html`<tr><td>${line.line}</td><td>${line.email ?? '—'}</td><td>${line.outcome}</td></tr>`,
  )}</table></div>${more}</div>`;
}

/** The import page: the upload form, the held file's columns to pick fields for, or a dry run's report with the form that imports the same file. */
export function importPage(at: ProductPage, view: ImportView, fields: ImportFields = NO_FIELDS): string {
  const again = html`<p><a href="${at.base}/entries/import">Start again with another file</a></p>`;
  const { held, columns, report } = view;
  const body = held && report
    ? html`<h2>Dry run: nothing was written</h2>${heldLine(held)}${reportOf(report)}
<h2>Import</h2><p>The import reads the same file as above; other fields or another state are refused (check the file again).</p>${importForm(at, held, fields, report)}${again}`
    : held && columns
      ? html`<h2>Columns</h2>${heldLine(held)}<p>Each column of the file with its first rows: pick the field it holds (email at least); columns without one are not imported.</p>${pickerForm(at, held, columns, fields)}${again}`
      : html`<p>A CSV export of GetWaitlist, Waitlister, Prefinery, Viral Loops or LaunchList, this service's own download, or any
file whose columns you name. Entries keep their sign-up time and order and join the line behind everyone waiting; addresses already
here, and those deleted or unsubscribed before, are left out. First you see the file's columns and pick the field of each, then a dry
run shows what will happen; nothing is written until you import. The file is chosen once: the server holds it for an hour, and
removes it once imported.</p>
${uploadForm(at)}`;
  return frame('Import entries', html`<p><a href="${at.base}/entries">← Entries</a></p><h1>Import entries</h1>${body}`, bar(at.identity, at, 'entries'), view.said);
}
