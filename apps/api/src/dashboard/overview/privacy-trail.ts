import { html, SafeHtml } from '@app/shared';
import type { PrivacyRequest, PrivacyRequestKind } from '../../personal-data/privacy-trail';
import type { ProductPage } from '../shared/product-page';
import { when } from '../shared/layout';

/** The overview lists this many of the newest; the CSV holds them all. */
export const TRAIL_ON_OVERVIEW = 10;

const KINDS: Record<PrivacyRequestKind, string> = {
  request: 'asked for the link to their data',
  download: 'downloaded their data',
  deletion: 'deleted their entry',
};

/** The overview's section: the newest requests, and the whole trail as CSV. */
export function trailSection(at: ProductPage, trail: PrivacyRequest[]): SafeHtml {
  const rows = trail.slice(0, TRAIL_ON_OVERVIEW);
  return html`<h2>Privacy requests</h2>
<p class="muted wrap">What people did on their my-data page: the request, the download and the deletion of their own data, by entry, never the address or the link. Kept as long as the product, for your records under the GDPR.</p>
${rows.length === 0
  ? html`<p class="muted">None yet.</p>`
  : html`<div class="scroll"><table><tr><th>When</th><th>What</th><th>Entry</th></tr>
${rows.map((row) => html`<tr><td>${when(row.at, true)}</td><td>${KINDS[row.kind]}</td><td><a href="${at.base}/entries/${row.entryId}"><code>${row.entryId}</code></a></td></tr>`)}
</table></div>`}
<p><a href="${at.base}/privacy-requests.csv" download>Export the privacy requests (CSV)</a></p>`;
}
