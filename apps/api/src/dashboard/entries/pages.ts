import { html, LANGUAGE_NAMES, SafeHtml } from '@app/shared';
import type { Entry, EntryRecord, Locale } from '@app/shared';
import type { EntryDetails } from '../../entries/profile.service';
import { detailFilterFields, detailsTables, hiddenDetailFilters } from './entry-details';
import type { ProductPage } from '../shared/product-page';
import type { PlaceChangeView } from '../../line/line.dto';
import type { ReferralView } from '../../referrals/referrals.dto';
import { askFirst, bar, confirmationPage, frame, postButton, Said, when } from '../shared/layout';
import type { ReachedMilestone } from '../../referrals/referral-lists';
import type { BulkAction, BulkForecast, BulkRequest } from './bulk-actions';
import { counted, entriesCount } from '../shared/messages';
import type { ListQuery } from '../../entries/entries.service';
import { milestonesTable, referralsTable, timeline } from './referral-pages';

export interface EntriesView {
  entries: Entry[];
  nextCursor: string | null;
  email?: string;
  state?: string;
  /** The filters on answers and attribution, as given (DETAIL_FILTER_FIELDS). */
  detailFilters: Record<string, string>;
}

export function entriesPage(at: ProductPage, view: EntriesView, said?: Said): string {
  const { identity, product } = at;
  const base = `${at.base}/entries`;
  const filters = { ...(view.email ? { email: view.email } : {}), ...(view.state ? { state: view.state } : {}), ...view.detailFilters };
  const next = new URLSearchParams({ ...filters, cursor: view.nextCursor ?? '' });
  return frame(
    `Entries of ${product.name}`,
    html`<h1>Entries</h1>
<form method="get" action="${base}" style="margin-bottom:1rem">
  <input type="search" name="email" placeholder="Find by email" value="${view.email ?? ''}">
  <select name="state" aria-label="State"><option value="">Every state</option>${(['pending', 'confirmed', 'invited', 'redeemed'] as const).map(
    (state) => html`<option value="${state}"${new SafeHtml(view.state === state ? ' selected' : '')}>${state}</option>`,
  )}</select>
  ${detailFilterFields(product.questions, view.detailFilters)}
  <button type="submit">Filter</button>
  <a href="${base}.csv?${new URLSearchParams(filters).toString()}">Export CSV</a>
  <a href="${base}/import">Import CSV</a>
</form>
<form method="get" action="${base}/bulk">
${view.email ? html`<input type="hidden" name="email" value="${view.email}">` : ''}${view.state ? html`<input type="hidden" name="state" value="${view.state}">` : ''}${hiddenDetailFilters(view.detailFilters)}
<div class="scroll"><table><tr><th><span class="muted" title="Select for a bulk action">✓</span></th><th>Email</th><th>State</th><th>Signed up</th><th>Confirmed</th><th>Invited</th><th>Referrals</th></tr>
${view.entries.length ? view.entries.map(
      (entry) => html`<tr><td><input type="checkbox" name="ids" value="${entry.id}" aria-label="Select ${entry.email}"></td><td><a href="${base}/${entry.id}">${entry.email}</a></td><td><span class="pill ${entry.state}">${entry.state}</span></td><td>${when(entry.createdAt)}</td>
<td>${when(entry.confirmedAt)}</td><td>${when(entry.invitedAt)}</td><td>${entry.referrals}</td></tr>`,
    ) : html`<tr><td colspan="7" class="muted">No entries.</td></tr>`}
</table></div>
<p><select name="action" aria-label="Bulk action"><option value="invite">Invite</option><option value="move-up">Move up by</option><option value="delete">Delete</option></select>
<input type="number" name="places" min="1" max="1000000" value="1" style="width:6rem" aria-label="Places (move up)">
<button type="submit" class="secondary">Apply to the selected</button>
<button type="submit" name="scope" value="filter" class="secondary">Apply to all matching entries</button></p>
</form>
${view.nextCursor ? html`<p><a href="${base}?${next.toString()}">Older entries →</a></p>` : ''}`,
    bar(identity, at, 'entries'),
    said,
  );
}

export interface EntryView {
  entry: Entry;
  /** The language of its pages and mails. */
  locale: Locale;
  place: number | null;
  movedUp: number;
  /** Its address's bounces, when it had any (undeliverable-pages.ts). */
  deliverability: string | null;
  referrals: ReferralView[];
  history: PlaceChangeView[];
  milestones: ReachedMilestone[];
  details: EntryDetails | undefined;
}

export function entryPage(at: ProductPage, view: EntryView, said?: Said): string {
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
    ['Language', `${LANGUAGE_NAMES[view.locale]} (${view.locale})`],
    ...(view.deliverability ? [['Mail', view.deliverability] as [string, string]] : []),
  ];
  return frame(
    entry.email,
    html`<p><a href="${base}/entries">← Entries</a></p>
<h1>${entry.email}</h1>
${view.place !== null ? html`<p>Place in line: <strong>#${view.place}</strong></p>` : ''}
<div class="scroll"><table class="fields">${rows.map(([label, value]) => html`<tr><th>${label}</th><td>${value ?? '—'}</td></tr>`)}</table></div>
<p style="margin-top:1rem">
${entry.state === 'confirmed' ? postButton(identity, action('invite'), 'Invite', 'primary') : ''}
${entry.state === 'invited' ? postButton(identity, action('reinvite'), 'Send the invitation again', 'primary') : ''}
${entry.state === 'confirmed' ? postButton(identity, action('move-up'), 'Move up', 'secondary', html`<input type="number" name="places" min="1" max="1000000" value="1" style="width:6rem" aria-label="Places"> `) : ''}
${askFirst(action('delete'), 'Delete')}
</p>
${detailsTables(at.product.questions, view.details)}
${referralsTable(at, entry.id, view.referrals)}
${milestonesTable(view.milestones)}
${timeline(view.history)}`,
    bar(identity, at, 'entries'),
    said,
  );
}

export interface DeleteEntryView {
  entry: Entry;
  place: number | null;
  /** The address of the entry that referred this one, when this one's confirmation moved it up. */
  referrer: string | null;
}

/** What deleting the entry takes with it (EntriesService.delete; the tokens and invite codes go with the row). */
export function deleteEntryPage(at: ProductPage, { entry, place, referrer }: DeleteEntryView): string {
  const page = `${at.base}/entries/${entry.id}`;
  const referred = entry.referrals === 1 ? 'The entry it referred keeps its place. ' : entry.referrals > 1 ? `The ${entry.referrals} entries it referred keep their places. ` : '';
  return confirmationPage(at, 'entries', {
    title: `Delete ${entry.email}?`,
    lost: html`<p>The entry ${entry.email} will be deleted for good${place !== null ? `, and with it its place in line (#${place})` : ''}.
${entry.state === 'invited' ? 'Its invite code stops working. ' : ''}Its confirmation and unsubscribe links stop working.</p>
<p>${referred}${referrer ? `${referrer}, who referred it, keeps any places its referral earned them. ` : ''}Webhook endpoints get an entry.deleted event.
The address may sign up again, as a new entry at the back of the line.</p>`,
    action: `${page}/delete`,
    button: 'Delete the entry',
    back: page,
  });
}

/** The front of the line, `shown` at most, with what the last invite-next said. */
export function linePage(at: ProductPage, line: EntryRecord[], shown: number, said?: Said): string {
  const { identity, base } = at;
  return frame(
    'Line',
    html`<h1>The line</h1>
<form method="post" action="${base}/line/invite-next" style="margin-bottom:1rem"><input type="hidden" name="_csrf" value="${identity.csrfToken}">
  Invite the next <input type="number" name="count" min="1" max="1000" value="10" style="width:6rem" aria-label="How many to invite"> in line <button type="submit">Invite</button></form>
<div class="scroll"><table><tr><th>Place</th><th>Email</th><th>Confirmed</th><th>Referrals</th><th>Moved up</th></tr>
${line.length ? line.map(
  (entry, i) => html`<tr><td>#${i + 1}</td><td><a href="${base}/entries/${entry.id}">${entry.email}</a></td><td>${when(entry.confirmedAt)}</td><td>${entry.referrals}</td><td>${entry.movedUp}</td></tr>`,
) : html`<tr><td colspan="5" class="muted">Nobody is waiting.</td></tr>`}
</table></div>${line.length === shown ? html`<p class="muted">The first ${shown} in line.</p>` : ''}`,
    bar(identity, at, 'line'),
    said,
  );
}


/** The entries list's filters as its address carries them, so that a bulk action's pages lead back to the list as it was. */
function listFilters(filters: ListQuery): Record<string, string> {
  const { details } = filters;
  const values = {
    email: filters.email ?? filters.emailContains,
    state: filters.state,
    utm_source: details?.utmSource,
    utm_campaign: details?.utmCampaign,
    question: details?.answer?.key,
    answer: details?.answer?.value,
  };
  return Object.fromEntries(Object.entries(values).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== ''));
}

/** The entries list with the filters of a bulk request. */
export function listPath(at: ProductPage, filters: ListQuery): string {
  const query = new URLSearchParams(listFilters(filters)).toString();
  return `${at.base}/entries${query ? `?${query}` : ''}`;
}

/** What the invitations will do under a capacity cap: how many it lets through, and why; null without a cap or when it lets every waiting entry through. */
function capacityForecast(forecast: BulkForecast): { title: string; words: string; button?: string } | null {
  const { count, capacity } = forecast;
  if (!capacity || capacity.free >= capacity.waiting) return null;
  const cap = counted('the capacity cap of {cap, plural, one {# invited entry} other {# invited entries}} not yet redeemed', { cap: capacity.cap });
  if (capacity.free === 0) {
    const title = counted('None of the {count, plural, one {# entry} other {# entries}} can be invited now', { count });
    return { title, words: `${title}: ${cap} is reached. A place comes free when an invited entry redeems or its code expires, or with a higher cap (Settings).` };
  }
  const values = { fits: capacity.free, count, stay: capacity.waiting - capacity.free, free: capacity.free };
  const button = counted('Invite {fits, number} of {count, plural, one {# entry} other {# entries}}', values);
  return {
    title: `${button}?`,
    button,
    words: counted('{free, plural, one {# place is} other {# places are}} free under {cap}: {fits, plural, one {# entry} other {# entries}} will be invited, {stay, plural, one {the other # stays} other {the other # stay}} in line.', { ...values, cap }),
  };
}

/** What a bulk action will do to how many entries; its button posts the same request, and both lead back to the list as it was. */
export function bulkConfirmationPage(at: ProductPage, request: BulkRequest, forecast: BulkForecast): string {
  const entries = entriesCount(forecast.count);
  const others = 'Entries it cannot act on are left as they are and listed with the reason afterwards.';
  const capped = capacityForecast(forecast);
  const ask = {
    invite: {
      title: capped?.title ?? `Invite ${entries}?`,
      lost: html`${capped ? html`<p>${capped.words}</p>` : ''}<p>Each waiting entry gets an invitation mail with a personal code and leaves the line. ${others}</p>`,
      button: capped ? capped.button : `Invite ${entries}`,
    },
    'move-up': {
      title: counted('Move up {entries} by {places, plural, one {# place} other {# places}} each?', { entries, places: request.places! }),
      lost: html`<p>Each waiting entry moves up by that many places, on top of what its referrals give. ${others}</p>`,
      button: `Move up ${entries}`,
    },
    delete: {
      title: `Delete ${entries}?`,
      lost: html`<p>The entries will be deleted for good, with their places in line, invite codes and confirmation and unsubscribe links.
Webhook endpoints get an entry.deleted event for each. The addresses may sign up again, as new entries at the back of the line.</p>`,
      button: `Delete ${entries}`,
    },
  }[request.action];
  const hidden = (name: string, value: string | number | undefined) => (value === undefined || value === '' ? '' : html`<input type="hidden" name="${name}" value="${String(value)}">`);
  const filters = Object.entries(listFilters(request.filters)).map(([name, value]) => hidden(name, value));
  const fields = html`${hidden('action', request.action)}${hidden('places', request.places)}${request.ids ? request.ids.map((id) => hidden('ids', id)) : hidden('scope', 'filter')}${filters}`;
  return confirmationPage(at, 'entries', { ...ask, action: `${at.base}/entries/bulk`, back: listPath(at, request.filters), fields });
}

/** An entry's old page after the person deleted it: what happened and when, and the way back. */
export function deletedEntryPage(at: ProductPage, id: string, deletedAt: Date): string {
  return frame(
    'Entry deleted',
    html`<h1>Entry deleted</h1>
<div class="card"><p class="wrap">The entry <code>${id}</code> was deleted on ${when(deletedAt, true)} at the person's own request, from their my-data page. Nothing of it is kept but the suppression list's one-way hash of its address and its id in the privacy trail.</p>
<p><a href="${at.base}/entries">← Entries</a></p></div>`,
    bar(at.identity, at, 'entries'),
  );
}
