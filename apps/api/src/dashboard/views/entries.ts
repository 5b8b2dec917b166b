import { html, SafeHtml } from '@app/shared';
import type { Entry, EntryRecord } from '@app/shared';
import type { ProductPage } from '../product-page';
import { bar, frame, postButton, when } from './layout';

export interface EntriesView {
  entries: Entry[];
  nextCursor: string | null;
  email?: string;
  state?: string;
}

export function entriesPage(at: ProductPage, view: EntriesView): string {
  const { identity, product } = at;
  const base = `${at.base}/entries`;
  const next = new URLSearchParams({ ...(view.email ? { email: view.email } : {}), ...(view.state ? { state: view.state } : {}), cursor: view.nextCursor ?? '' });
  return frame(
    `Entries of ${product.name}`,
    html`<h1>Entries</h1>
<form method="get" action="${base}" style="margin-bottom:1rem">
  <input type="search" name="email" placeholder="Find by email" value="${view.email ?? ''}">
  <select name="state"><option value="">Every state</option>${(['pending', 'confirmed', 'invited', 'redeemed'] as const).map(
    (state) => html`<option value="${state}"${new SafeHtml(view.state === state ? ' selected' : '')}>${state}</option>`,
  )}</select>
  <button type="submit">Filter</button>
  <a href="${base}.csv?${new URLSearchParams({ ...(view.email ? { email: view.email } : {}), ...(view.state ? { state: view.state } : {}) }).toString()}">Export CSV</a>
</form>
<table><tr><th>Email</th><th>State</th><th>Signed up</th><th>Confirmed</th><th>Invited</th><th>Referrals</th></tr>
${view.entries.length ? view.entries.map(
      (entry) => html`<tr><td><a href="${base}/${entry.id}">${entry.email}</a></td><td><span class="pill ${entry.state}">${entry.state}</span></td><td>${when(entry.createdAt)}</td>
<td>${when(entry.confirmedAt)}</td><td>${when(entry.invitedAt)}</td><td>${entry.referrals}</td></tr>`,
    ) : html`<tr><td colspan="6" class="muted">No entries.</td></tr>`}
</table>
${view.nextCursor ? html`<p><a href="${base}?${next.toString()}">Older entries →</a></p>` : ''}`,
    bar(identity, at, 'entries'),
  );
}

export interface EntryView {
  entry: Entry;
  place: number | null;
  movedUp: number;
  referred: Entry[];
  message?: string;
}

export function entryPage(at: ProductPage, view: EntryView): string {
  const { identity, base } = at;
  const { entry } = view;
  const action = (name: string) => `${base}/entries/${entry.id}/${name}`;
  const rows: [string, string | number | null][] = [
    ['Id', entry.id],
    ['State', entry.state],
    ['Signed up', when(entry.createdAt, true)],
    ['Confirmed', when(entry.confirmedAt, true)],
    ['Invited', when(entry.invitedAt, true)],
    ['Redeemed', when(entry.redeemedAt, true)],
    ['Referral code', entry.referralCode],
    ['Referrals', entry.referrals],
    ['Moved up by hand', view.movedUp],
  ];
  return frame(
    entry.email,
    html`<p><a href="${base}/entries">← Entries</a></p>
<h1>${entry.email}</h1>
${view.message ? html`<p role="status" class="pill" style="display:inline-block;padding:.4rem .8rem">${view.message}</p>` : ''}
${view.place !== null ? html`<p>Place in line: <strong>#${view.place}</strong></p>` : ''}
<table>${rows.map(([label, value]) => html`<tr><th style="width:12rem">${label}</th><td>${value ?? '—'}</td></tr>`)}</table>
<p style="margin-top:1rem">
${entry.state === 'confirmed' ? postButton(identity, action('invite'), 'Invite', 'primary') : ''}
${entry.state === 'invited' ? postButton(identity, action('reinvite'), 'Send the invitation again', 'primary') : ''}
${entry.state === 'confirmed' ? postButton(identity, action('move-up'), 'Move up', 'secondary', html`<input type="number" name="places" min="1" max="1000000" value="1" style="width:6rem" aria-label="Places"> `) : ''}
${postButton(identity, action('delete'), 'Delete', 'danger')}
</p>
<h2 style="font-size:1.05rem">Referrals</h2>
<table><tr><th>Email</th><th>State</th><th>Confirmed</th></tr>
${view.referred.length ? view.referred.map((friend) => html`<tr><td><a href="${base}/entries/${friend.id}">${friend.email}</a></td><td><span class="pill ${friend.state}">${friend.state}</span></td><td>${when(friend.confirmedAt)}</td></tr>`) : html`<tr><td colspan="3" class="muted">None yet.</td></tr>`}
</table>`,
    bar(identity, at, 'entries'),
  );
}

/** The front of the line, `shown` at most, with the result of the last invite-next. */
export function linePage(at: ProductPage, line: EntryRecord[], shown: number, result?: { invited: number; failed: number }): string {
  const { identity, base } = at;
  return frame(
    'Line',
    html`<h1>The line</h1>
${result ? html`<p role="status">${result.invited} invited${result.failed ? html`; ${result.failed} could not be mailed and keep their place` : ''}.</p>` : ''}
<form method="post" action="${base}/line/invite-next" style="margin-bottom:1rem"><input type="hidden" name="_csrf" value="${identity.csrfToken}">
  Invite the next <input type="number" name="count" min="1" max="1000" value="10" style="width:6rem"> in line <button type="submit">Invite</button></form>
<table><tr><th>Place</th><th>Email</th><th>Confirmed</th><th>Referrals</th><th>Moved up</th></tr>
${line.length ? line.map(
  (entry, i) => html`<tr><td>#${i + 1}</td><td><a href="${base}/entries/${entry.id}">${entry.email}</a></td><td>${when(entry.confirmedAt)}</td><td>${entry.referrals}</td><td>${entry.movedUp}</td></tr>`,
) : html`<tr><td colspan="5" class="muted">Nobody is waiting.</td></tr>`}
</table>${line.length === shown ? html`<p class="muted">The first ${shown} in line.</p>` : ''}`,
    bar(identity, at, 'line'),
  );
}
