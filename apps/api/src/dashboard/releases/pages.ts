import { html, SafeHtml } from '@app/shared';
import type { RunEntries, RunEntry } from '../../releases/release-runs';
import type { ReleaseRunView, ReleaseView } from '../../releases/releases.dto';
import type { RunForecast } from '../../releases/run-forecast';
import { EVERY_HOURS, runInWords, type ScheduleChoice, scheduleInWords, WEEKDAYS } from '../../releases/schedule-choice';
import { counted } from '../shared/messages';
import type { ProductPage } from '../shared/product-page';
import { askFirst, bar, confirmationPage, frame, postButton, Said, when } from '../shared/layout';

export interface ReleaseForm extends ScheduleChoice {
  count: string;
  timeZone: string;
}

const EMPTY_FORM: ReleaseForm = { count: '100', kind: 'weekly', day: '1', at: '09:00', hours: '6', pattern: '0 9 * * 1', timeZone: 'UTC' };

const KINDS: [string, string][] = [
  ['weekdays', 'every weekday (Monday to Friday)'],
  ['weekly', 'every week, on a day'],
  ['daily', 'every day'],
  ['hours', 'every few hours'],
  ['cron', 'on a cron expression (expert)'],
];

/** Every zone the runtime knows, for the zone field's suggestions: searchable by typing, no script needed. */
const TIME_ZONES = html`<datalist id="time-zones">${['UTC', ...Intl.supportedValuesOf('timeZone')].map((zone) => html`<option value="${zone}">`)}</datalist>`;

function options(choices: [string, string][], chosen: string): SafeHtml {
  return html`${choices.map(([value, words]) => html`<option value="${value}"${new SafeHtml(value === chosen ? ' selected' : '')}>${words}</option>`)}`;
}

/** What a release does, in words where its schedule is a common one. */
function releaseInWords(release: ReleaseView): SafeHtml {
  const words = scheduleInWords(release.pattern);
  return words
    ? html`Invite ${release.count} ${words} in ${release.timeZone}`
    : html`Invite ${release.count} on the cron expression <code>${release.pattern}</code> in ${release.timeZone}`;
}

function nextRun(release: ReleaseView): SafeHtml {
  return release.nextRunAt && release.nextRunLocal
    ? html`<time datetime="${release.nextRunLocal}">${runInWords(new Date(release.nextRunAt), release.timeZone)}</time>`
    : html`<span class="muted">—</span>`;
}

/** The form that makes a release: a common schedule chosen, or cron; the server turns the choice into cron. */
function releaseForm(at: ProductPage, form: ReleaseForm): SafeHtml {
  return html`<form method="post" action="${at.base}/releases" class="card settings" style="margin-bottom:1rem"><input type="hidden" name="_csrf" value="${at.identity.csrfToken}">
<label for="count">Invite</label><input id="count" name="count" type="number" min="1" max="1000" required value="${form.count}">
<p class="muted">people from the front of the line at each run.</p>
<label for="kind">Runs</label><select id="kind" name="kind">${options(KINDS, form.kind)}</select>
<label for="day">on</label><select id="day" name="day">${options(WEEKDAYS.map((name, day) => [String(day), name] as [string, string]), form.day)}</select>
<p class="muted">The day, for “every week”.</p>
<label for="at">at</label><input id="at" name="at" type="time" value="${form.at}">
<p class="muted">The time of day, for every weekday, week or day.</p>
<label for="hours">every … hours</label><select id="hours" name="hours">${options(EVERY_HOURS.map((hours) => [String(hours), String(hours)] as [string, string]), form.hours)}</select>
<p class="muted">For “every few hours”: on the hour, counted from midnight.</p>
<label for="pattern">cron expression</label><input id="pattern" name="pattern" type="text" maxlength="100" value="${form.pattern}">
<p class="muted">For “on a cron expression”: minute, hour, day of month, month, day of week; 0 9 1 * * is the first of each month at 9:00.</p>
<label for="timeZone">in the time zone</label><input id="timeZone" name="timeZone" type="text" list="time-zones" required maxlength="64" autocomplete="off" value="${form.timeZone}">${TIME_ZONES}
<p class="muted">Type a city or region to pick its zone, such as Europe/Berlin or America/New_York. On a daylight-saving night a run of the missing hour comes an hour later, and a run of the doubled hour comes once.</p>
<p><button type="submit">Schedule the release</button></p></form>`;
}

/** The releases of a product's mode, each with its next run in its zone, and the form that makes one. */
export function releasesPage(at: ProductPage, releases: ReleaseView[], said?: Said, form: ReleaseForm = EMPTY_FORM): string {
  const { identity, mode } = at;
  const base = `${at.base}/releases`;
  return frame(
    'Releases',
    html`<h1>Releases (${mode})</h1>
<p class="muted">A release invites people from the front of the line on a schedule, once per run however many servers run the service.
Each run is invite-next: whose mail fails stays in line. With a capacity cap (Settings), a run invites only up to the cap.</p>
${releaseForm(at, form)}
<div class="scroll"><table><tr><th>Release</th><th>Next run</th><th>Status</th><th></th></tr>
${releases.length ? releases.map(
  (release) => html`<tr><td>${releaseInWords(release)}<br><span class="muted">${scheduleInWords(release.pattern) ? html`cron <code>${release.pattern}</code> · ` : ''}${release.id}</span></td>
<td>${nextRun(release)}</td>
<td><span class="pill ${release.paused ? 'failed' : 'succeeded'}">${release.paused ? 'paused' : 'active'}</span></td>
<td><a href="${base}/${release.id}">Runs</a> ${postButton(identity, `${base}/${release.id}/${release.paused ? 'resume' : 'pause'}`, release.paused ? 'Resume' : 'Pause')}
${askFirst(`${base}/${release.id}/run`, 'Run now', 'secondary')}${askFirst(`${base}/${release.id}/delete`, 'Delete')}</td></tr>`,
) : html`<tr><td colspan="4" class="muted">No releases yet.</td></tr>`}
</table></div>`,
    bar(identity, at, 'releases'),
    said,
  );
}

/** A release's next five runs in words and its runs, newest first, each with a link to whom it invited. */
export function releaseRunsPage(at: ProductPage, release: ReleaseView, next: Date[], runs: ReleaseRunView[]): string {
  const base = `${at.base}/releases/${release.id}`;
  return frame(
    'Release runs',
    html`<p><a href="${at.base}/releases">← Releases</a></p>
<h1 class="wrap">Runs of “${releaseInWords(release)}”</h1>
<p class="muted wrap">cron <code>${release.pattern}</code> in ${release.timeZone}${release.paused ? ' · paused' : ''}</p>
<h2>Next runs</h2>
${next.length
  ? html`<ol aria-label="The next five runs" class="wrap">${next.map((tick) => html`<li>${runInWords(tick, release.timeZone)}</li>`)}</ol>`
  : html`<p class="muted">Paused: it runs again once resumed (or run now).</p>`}
<h2>Runs</h2>
<div class="scroll"><table><tr><th>For</th><th>Started</th><th>Asked</th><th>Invited</th><th>Mail failed (still in line)</th><th>Left out by the cap</th><th></th></tr>
${runs.length ? runs.map(
  (run) => html`<tr><td>${run.tickAt ? runInWords(new Date(run.tickAt), release.timeZone) : 'run now'}</td><td>${when(run.startedAt, true)}${run.finishedAt ? '' : html` <span class="muted">(running)</span>`}</td><td>${run.asked}</td><td>${run.invited}</td>
<td>${run.failed}${run.error ? html`<br><span style="color:#cf222e">${run.error}</span>` : ''}</td><td>${run.skippedForCapacity}${run.skippedForQuota ? html`<br><span class="muted">${run.skippedForQuota} left for a later run by the mail quota</span>` : ''}</td>
<td><a href="${base}/runs/${run.id}">Who</a></td></tr>`,
) : html`<tr><td colspan="7" class="muted">No runs yet.</td></tr>`}
</table></div>`,
    bar(at.identity, at, 'releases'),
  );
}

function entryList(at: ProductPage, name: string, entries: RunEntry[]): SafeHtml {
  if (!entries.length) return html`<p class="muted">Nobody.</p>`;
  return html`<ul aria-label="${name}" class="wrap">${entries.map(
    (entry) => html`<li>${entry.email ? html`<a href="${at.base}/entries/${entry.id}">${entry.email}</a>` : html`<span class="muted">a deleted entry</span>`}</li>`,
  )}</ul>`;
}

/** Whom a run invited and whose mail failed (those stay in line). */
export function releaseRunPage(at: ProductPage, release: ReleaseView, { run, invited, failed }: RunEntries): string {
  const unlisted = run.invited - invited.length;
  return frame(
    'Release run',
    html`<p><a href="${at.base}/releases/${release.id}">← Runs</a></p>
<h1 class="wrap">${run.tickAt ? html`The run of ${runInWords(new Date(run.tickAt), release.timeZone)}` : html`A run now of ${when(run.startedAt, true)}`}</h1>
<p class="muted wrap">${releaseInWords(release)} · asked ${run.asked}${run.skippedForCapacity ? html` · ${run.skippedForCapacity} left out by the capacity cap` : ''}${run.skippedForQuota ? html` · ${run.skippedForQuota} left for later by the mail quota` : ''}${run.finishedAt ? '' : ' · still running'}</p>
${run.error ? html`<p role="alert" style="color:#cf222e">${run.error}</p>` : ''}
<h2>Invited (${run.invited})</h2>
${entryList(at, 'Invited', invited)}
${unlisted > 0 ? html`<p class="muted">${counted('{n, plural, one {# invited entry is} other {# invited entries are}} not listed: the run is older than this list.', { n: unlisted })}</p>` : ''}
<h2>Mail failed, still in line (${run.failed})</h2>
${entryList(at, 'Mail failed, still in line', failed)}`,
    bar(at.identity, at, 'releases'),
  );
}

/** "Run now" asked first: how many it will invite, and what bounds that. */
export function runNowPage(at: ProductPage, release: ReleaseView, forecast: RunForecast): string {
  const bounds = [
    counted('the release asks for {n}', { n: forecast.asked }),
    forecast.capacityFree === null ? null : counted('the capacity cap leaves {n, plural, one {# place} other {# places}} free', { n: forecast.capacityFree }),
    forecast.quotaRoom === null ? null : counted('the mail quota leaves room for {n, plural, one {# mail} other {# mails}} this hour and day', { n: forecast.quotaRoom }),
    forecast.waiting >= forecast.asked
      ? counted('at least {n, plural, one {# person is} other {# people are}} waiting in line', { n: forecast.waiting })
      : counted('{n, plural, =0 {nobody is} one {# person is} other {# people are}} waiting in line', { n: forecast.waiting }),
  ].filter((bound): bound is string => bound !== null);
  return confirmationPage(at, 'releases', {
    title: 'Run this release now?',
    lost: html`<p>${counted('This run will invite {n, plural, =0 {nobody} one {# person} other {# people}} now', { n: forecast.invites })}: ${bounds.join('; ')}.</p>
<p>“${releaseInWords(release)}” runs now, whether paused or not, beside its schedule. Whose mail fails stays in line. The numbers are counted again as it runs.</p>`,
    action: `${at.base}/releases/${release.id}/run`,
    button: 'Run now',
    back: `${at.base}/releases`,
  });
}

export function deleteReleasePage(at: ProductPage, release: ReleaseView): string {
  return confirmationPage(at, 'releases', {
    title: 'Delete this release?',
    lost: html`<p>The release “${releaseInWords(release)}” will be deleted for good: it runs no more, and the record of its runs goes with it.
The people it invited stay invited. To stop it for a while and keep its runs, pause it instead.</p>`,
    action: `${at.base}/releases/${release.id}/delete`,
    button: 'Delete the release',
    back: `${at.base}/releases`,
  });
}
