import { html } from '@app/shared';
import type { EntryRecord } from '@app/shared';
import type { ProductPage } from '../shared/product-page';
import { askFirst, bar, confirmationPage, frame, when } from '../shared/layout';

/** The entry page's line about its address, for one that bounced; nothing for one that never did. */
export function deliverability(record: Pick<EntryRecord, 'undeliverableAt' | 'softBounces'>): string | null {
  const soft = record.softBounces === 1 ? '1 soft bounce' : `${record.softBounces} soft bounces`;
  if (record.undeliverableAt) return `Undeliverable since ${when(record.undeliverableAt, true)} (${soft}); invite-next and releases skip it`;
  return record.softBounces > 0 ? `Deliverable (${soft} so far)` : null;
}

/** The undeliverable entries of a product's mode, each with the way to clear it. */
export function undeliverablePage(at: ProductPage, entries: EntryRecord[], shown: number): string {
  const { identity, base } = at;
  return frame(
    'Undeliverable addresses',
    html`<p><a href="${base}/overview">← Overview</a></p>
<h1>Undeliverable addresses</h1>
<p class="muted">Addresses the mail provider reported as bouncing for good (or soft bounces up to the limit). Invite-next and releases pass them over; they keep their place in line. Clear one once the person has fixed it.</p>
<div class="scroll"><table><tr><th>Email</th><th>State</th><th>Undeliverable since</th><th>Soft bounces</th><th></th></tr>
${entries.length ? entries.map(
  (entry) => html`<tr><td><a href="${base}/entries/${entry.id}">${entry.email}</a></td><td><span class="pill ${entry.state}">${entry.state}</span></td><td>${when(entry.undeliverableAt)}</td><td>${entry.softBounces}</td>
<td>${askFirst(`${base}/undeliverable/${entry.id}/clear`, 'Mark deliverable', 'secondary')}</td></tr>`,
) : html`<tr><td colspan="5" class="muted">No undeliverable addresses.</td></tr>`}
</table></div>${entries.length === shown ? html`<p class="muted">The ${shown} marked most recently.</p>` : ''}`,
    bar(identity, at, 'overview'),
  );
}

/** The second step of clearing: what it changes; for an address not marked, only that. */
export function clearPage(at: ProductPage, entry: EntryRecord): string {
  const back = `${at.base}/undeliverable`;
  if (!entry.undeliverableAt) {
    return confirmationPage(at, 'overview', { title: `${entry.email} is deliverable`, lost: html`<p>${entry.email} is not marked undeliverable: there is nothing to clear.</p>`, action: back, back });
  }
  return confirmationPage(at, 'overview', {
    title: `Mark ${entry.email} deliverable?`,
    lost: html`<p>${entry.email} was marked undeliverable on ${when(entry.undeliverableAt, true)}. Once cleared, invite-next and releases take it again in its turn, and its soft bounces start again from 0.</p>
<p>Clear it only when the address takes mail again: another bounce marks it undeliverable again, and bounces count against the sender with the mail provider.</p>`,
    action: `${at.base}/undeliverable/${entry.id}/clear`,
    button: 'Mark deliverable',
    back,
  });
}
