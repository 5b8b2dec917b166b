import { html, SafeHtml } from '@app/shared';
import { IMPORT_FIELDS, ImportField } from '../../imports/formats/format';
import type { ImportReport } from '../../imports/imports.dto';
import type { FileColumns } from '../import-columns';
import { counted } from '../messages';
import type { ProductPage } from '../product-page';
import { bar, frame } from './layout';

export interface ImportView {
  /** The dry run's report, to be confirmed by importing the same file. */
  report?: ImportReport;
  /** Why the file or a field was refused, in words. */
  problem?: string;
  /** The uploaded file's columns, to pick a field for each. */
  columns?: FileColumns;
}

/** The options as the form posts them, kept from the picker to the dry run and the import. */
export interface ImportFields {
  /** The field picked for each column ('' for none). */
  picks: string[];
  state: string;
  confirmationMails: boolean;
  events: boolean;
}

const NO_FIELDS: ImportFields = { picks: [], state: 'confirmed', confirmationMails: false, events: false };

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

/**
 * A form that posts a file: its fields first, then the file, so that they reach the server before the
 * file's bytes. The CSRF token goes in the action's query: the body is the file, read as a stream.
 */
function fileForm(at: ProductPage, fields: SafeHtml, file: string, button: SafeHtml): SafeHtml {
  const action = `${at.base}/entries/import?${new URLSearchParams({ _csrf: at.identity.csrfToken }).toString()}`;
  return html`<form method="post" action="${action}" enctype="multipart/form-data" class="card">${fields}
<p><label>${file} <input type="file" name="file" accept=".csv,text/csv" required></label></p>
<p>${button}</p></form>`;
}

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

/** The picker, with the options and the same file again, for the dry run. */
function pickerForm(at: ProductPage, columns: FileColumns, fields: ImportFields): SafeHtml {
  return fileForm(
    at,
    html`<input type="hidden" name="columns" value="${JSON.stringify(columns)}">${pickerOf(columns, fields)}${optionsOf(fields)}
<p class="muted">The dry run reads the file you uploaded with these fields: choose it again (another file is refused).</p>`,
    'CSV file',
    html`<button type="submit" class="primary">Check the file (dry run)</button>`,
  );
}

/** The import of the file the dry run checked, read with the same fields and options. */
function importForm(at: ProductPage, columns: FileColumns, fields: ImportFields, checked: ImportReport): SafeHtml {
  return fileForm(
    at,
    html`<input type="hidden" name="dryRun" value="false"><input type="hidden" name="checksum" value="${checked.checksum}">
<input type="hidden" name="columns" value="${JSON.stringify(columns)}">${fields.picks.map((pick, index) => html`<input type="hidden" name="column${index}" value="${pick}">`)}${optionsOf(fields)}`,
    'CSV file',
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

/** The import page: the upload form, the file's columns to pick fields for, or a dry run's report with the form that imports the same file. */
export function importPage(at: ProductPage, view: ImportView, fields: ImportFields = NO_FIELDS): string {
  const again = html`<p><a href="${at.base}/entries/import">Start again with another file</a></p>`;
  const body = view.report && view.columns
    ? html`<h2>Dry run: nothing was written</h2>${reportOf(view.report)}
<h2>Import</h2><p>Choose the same file again to import it as above; another file, or other fields or another state, is refused.</p>${importForm(at, view.columns, fields, view.report)}${again}`
    : view.columns
      ? html`<h2>Columns</h2><p>Each column of the file with its first rows: pick the field it holds (email at least); columns without one are not imported.</p>${pickerForm(at, view.columns, fields)}${again}`
      : html`<p>A CSV export of GetWaitlist, Waitlister, Prefinery, Viral Loops or LaunchList, this service's own download, or any
file whose columns you name. Entries keep their sign-up time and order and join the line behind everyone waiting; addresses already
here, and those deleted or unsubscribed before, are left out. First you see the file's columns and pick the field of each, then a dry
run shows what will happen; nothing is written until you import.</p>
${fileForm(at, html``, 'CSV file', html`<button type="submit" class="secondary">Show the columns</button>`)}`;
  return frame(
    'Import entries',
    html`<p><a href="${at.base}/entries">← Entries</a></p><h1>Import entries</h1>
${view.problem ? html`<p role="alert" class="pill" style="display:inline-block;padding:.4rem .8rem">${view.problem}</p>` : ''}${body}`,
    bar(at.identity, at, 'entries'),
  );
}
