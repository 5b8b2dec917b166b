import { html, SafeHtml } from '@app/shared';
import type { ImportReport } from '../../imports/imports.dto';
import { counted } from '../messages';
import type { ProductPage } from '../product-page';
import { bar, frame } from './layout';

export interface ImportView {
  /** The dry run's report, to be confirmed by importing the same file. */
  report?: ImportReport;
  /** Why the file or a field was refused, in words. */
  problem?: string;
}

/** The options as the form posts them, kept between the dry run and the import. */
export interface ImportFields {
  mapping: string;
  state: string;
  confirmationMails: boolean;
  events: boolean;
}

const NO_FIELDS: ImportFields = { mapping: '', state: 'confirmed', confirmationMails: false, events: false };

/**
 * The upload form: options first, then the file, so that the fields reach the server before the file's
 * bytes. The CSRF token goes in the action's query: the body is the file, read as a stream. The wide
 * mapping field stands beside its label, not in it: a phone's max-width:100% then holds it to the form.
 */
function uploadForm(at: ProductPage, fields: ImportFields, checked?: ImportReport): SafeHtml {
  const dryRun = !checked;
  const action = `${at.base}/entries/import?${new URLSearchParams({ _csrf: at.identity.csrfToken }).toString()}`;
  const ticked = (on: boolean) => new SafeHtml(on ? ' checked' : '');
  return html`<form method="post" action="${action}" enctype="multipart/form-data" class="card">
<input type="hidden" name="dryRun" value="${String(dryRun)}">${checked ? html`<input type="hidden" name="checksum" value="${checked.checksum}">` : ''}
<p><label>Rows without a state join as <select name="state">${(['confirmed', 'pending'] as const).map(
    (state) => html`<option value="${state}"${new SafeHtml(fields.state === state ? ' selected' : '')}>${state === 'confirmed' ? 'confirmed (in line)' : 'pending (asked to confirm)'}</option>`,
  )}</select></label></p>
<p><label for="mapping">Columns, for a file of another tool (JSON, column → field):</label>
<input type="text" id="mapping" name="mapping" value="${fields.mapping}" placeholder='{"Email Address": "email", "Joined": "createdAt"}' style="width:28rem"></p>
<p><label><input type="checkbox" name="confirmationMails" value="true"${ticked(fields.confirmationMails)}> Send a confirmation mail to pending entries</label>
<label><input type="checkbox" name="events" value="true"${ticked(fields.events)}> Send entry.created and entry.confirmed to webhooks</label></p>
<p><label>CSV file <input type="file" name="file" accept=".csv,text/csv" required></label></p>
<p><button type="submit" class="${dryRun ? 'secondary' : 'primary'}">${
    checked ? counted('Import {created, plural, one {# entry} other {# entries}}', { created: checked.created }) : 'Check the file (dry run)'
  }</button></p>
</form>`;
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

/** The import page: the upload form, or a dry run's report with the form that imports the same file. */
export function importPage(at: ProductPage, view: ImportView, fields: ImportFields = NO_FIELDS): string {
  const body = view.report
    ? html`<h2>Dry run: nothing was written</h2>${reportOf(view.report)}
<h2>Import</h2><p>Choose the same file again to import it as above; another file, or another mapping or state, is refused.</p>${uploadForm(at, fields, view.report)}`
    : html`<p>A CSV export of GetWaitlist, Waitlister, Prefinery, Viral Loops or LaunchList, this service's own download, or any
file whose columns you name. Entries keep their sign-up time and order and join the line behind everyone waiting; addresses already
here, and those deleted or unsubscribed before, are left out. First a dry run shows what will happen; nothing is written until you import.</p>
${uploadForm(at, fields)}`;
  return frame(
    'Import entries',
    html`<p><a href="${at.base}/entries">← Entries</a></p><h1>Import entries</h1>
${view.problem ? html`<p role="alert" class="pill" style="display:inline-block;padding:.4rem .8rem">${view.problem}</p>` : ''}${body}`,
    bar(at.identity, at, 'entries'),
  );
}
