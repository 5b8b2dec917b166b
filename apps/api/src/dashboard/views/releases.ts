import { html } from '@app/shared';
import type { ReleaseRunView, ReleaseView } from '../../releases/releases.dto';
import type { Notice } from '../messages';
import type { ProductPage } from '../product-page';
import { askFirst, bar, confirmationPage, frame, postButton, when } from './layout';

export interface ReleaseForm {
  count: string;
  pattern: string;
  timeZone: string;
}

const EMPTY_FORM: ReleaseForm = { count: '100', pattern: '0 9 * * 1', timeZone: 'UTC' };

/** The releases of a product's mode, each with its next run in its zone, and the form that makes one. */
export function releasesPage(at: ProductPage, releases: ReleaseView[], notice?: Notice & { error?: string }, form: ReleaseForm = EMPTY_FORM): string {
  const { identity, mode } = at;
  const base = `${at.base}/releases`;
  const ran = notice?.releaseRun;
  return frame(
    'Releases',
    html`<h1>Releases (${mode})</h1>
<p class="muted">A release invites people from the front of the line on a schedule, once per run however many servers run the service.
Each run is invite-next: whose mail fails stays in line. With a capacity cap (Settings), a run invites only up to the cap.</p>
${ran ? html`<p role="status">The run invited ${ran.invited}${ran.failed ? html`; ${ran.failed} mails failed and those entries stay in line` : ''}${ran.skippedForCapacity ? html`; ${ran.skippedForCapacity} left out by the capacity cap` : ''}.</p>` : ''}
${notice?.error ? html`<p role="alert" style="color:#cf222e">${notice.error}</p>` : ''}
<form method="post" action="${base}" class="card" style="margin-bottom:1rem"><input type="hidden" name="_csrf" value="${identity.csrfToken}">
<label for="count">Invite</label><input id="count" name="count" type="number" min="1" max="1000" required value="${form.count}">
<label for="pattern">every (cron expression)</label><input id="pattern" name="pattern" type="text" required maxlength="100" value="${form.pattern}">
<p class="muted">Minute, hour, day of month, month, day of week: 0 9 * * 1 is Mondays at 9:00; 0 */6 * * * every six hours.</p>
<label for="timeZone">in the time zone</label><input id="timeZone" name="timeZone" type="text" required maxlength="64" value="${form.timeZone}">
<p class="muted">An IANA time zone, such as Europe/Berlin or America/New_York. On a daylight-saving night a run of the missing hour comes an hour later, and a run of the doubled hour comes once.</p>
<button type="submit">Schedule the release</button></form>
<div class="scroll"><table><tr><th>Release</th><th>Next run</th><th>Status</th><th></th></tr>
${releases.length ? releases.map(
  (release) => html`<tr><td>Invite ${release.count} every <code>${release.pattern}</code> in ${release.timeZone}<br><span class="muted">${release.id}</span></td>
<td>${release.nextRunLocal ?? html`<span class="muted">—</span>`}</td>
<td><span class="pill ${release.paused ? 'failed' : 'succeeded'}">${release.paused ? 'paused' : 'active'}</span></td>
<td><a href="${base}/${release.id}">Runs</a> ${postButton(identity, `${base}/${release.id}/${release.paused ? 'resume' : 'pause'}`, release.paused ? 'Resume' : 'Pause')}
${postButton(identity, `${base}/${release.id}/run`, 'Run now')}${askFirst(`${base}/${release.id}/delete`, 'Delete')}</td></tr>`,
) : html`<tr><td colspan="4" class="muted">No releases yet.</td></tr>`}
</table></div>`,
    bar(identity, at, 'releases'),
  );
}

/** A release's runs, newest first. */
export function releaseRunsPage(at: ProductPage, release: ReleaseView, runs: ReleaseRunView[]): string {
  return frame(
    'Release runs',
    html`<p><a href="${at.base}/releases">← Releases</a></p>
<h1>Runs of “invite ${release.count} every ${release.pattern}”</h1><p class="muted">${release.timeZone} · ${release.nextRunLocal ? html`next run ${release.nextRunLocal}` : 'paused'}</p>
<div class="scroll"><table><tr><th>For</th><th>Started</th><th>Asked</th><th>Invited</th><th>Mail failed (still in line)</th><th>Left out by the cap</th></tr>
${runs.length ? runs.map(
  (run) => html`<tr><td>${run.tickLocal ?? 'run now'}</td><td>${when(run.startedAt, true)}${run.finishedAt ? '' : html` <span class="muted">(running)</span>`}</td><td>${run.asked}</td><td>${run.invited}</td>
<td>${run.failed}${run.error ? html`<br><span style="color:#cf222e">${run.error}</span>` : ''}</td><td>${run.skippedForCapacity}${run.skippedForQuota ? html`<br><span class="muted">${run.skippedForQuota} left for a later run by the mail quota</span>` : ''}</td></tr>`,
) : html`<tr><td colspan="6" class="muted">No runs yet.</td></tr>`}
</table></div>`,
    bar(at.identity, at, 'releases'),
  );
}

export function deleteReleasePage(at: ProductPage, release: ReleaseView): string {
  return confirmationPage(at, 'releases', {
    title: 'Delete this release?',
    lost: html`<p>The release “invite ${release.count} every ${release.pattern} in ${release.timeZone}” will be deleted for good: it runs no more, and the record of its runs goes with it.
The people it invited stay invited. To stop it for a while and keep its runs, pause it instead.</p>`,
    action: `${at.base}/releases/${release.id}/delete`,
    button: 'Delete the release',
    back: `${at.base}/releases`,
  });
}
