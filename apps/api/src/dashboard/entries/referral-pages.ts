import { html, SafeHtml } from '@app/shared';
import type { ReferralReason } from '@app/shared';
import type { Referrer } from '../../leaderboard/leaderboard.service';
import type { PlaceChangeView } from '../../line/line.dto';
import type { ReferralView } from '../../referrals/referrals.dto';
import type { ReachedMilestone, ReferralToReview } from '../../referrals/referral-lists';
import type { ProductPage } from '../shared/product-page';
import { askFirst, bar, confirmationPage, frame, postButton, Said, when } from '../shared/layout';
import { REASONS } from '../shared/messages';

const reasons = (list: ReferralReason[]) => list.map((reason) => REASONS[reason]).join('; ') || '—';

/** The path of a referral's decision, under its referrer's entry page. */
const decisionPath = (at: ProductPage, referrerId: string, referralId: string, decision: 'grant' | 'revoke') =>
  `${at.base}/entries/${encodeURIComponent(referrerId)}/referrals/${encodeURIComponent(referralId)}/${decision}`;

/** Grant (one click) and revoke (asked first) of a confirmed referral; `back` (in the query) says where the team returns. */
function decisions(at: ProductPage, referrerId: string, referral: ReferralView, back: 'entry' | 'review'): SafeHtml | string {
  if (referral.confirmedAt === null) return '';
  const grant = referral.state === 'credited' ? '' : postButton(at.identity, `${decisionPath(at, referrerId, referral.id, 'grant')}?back=${back}`, 'Grant');
  const revoke = referral.reasons.includes('revoked_by_team') ? '' : askFirst(`${decisionPath(at, referrerId, referral.id, 'revoke')}?back=${back}`, 'Revoke');
  return html`${grant}${revoke}`;
}

/** An entry's referrals with their credit, for its page. */
export function referralsTable(at: ProductPage, referrerId: string, referrals: ReferralView[]): SafeHtml {
  return html`<h2 style="font-size:1.05rem">Referrals</h2>
<div class="scroll"><table><tr><th>Email</th><th>Credit</th><th>Why</th><th>Confirmed</th><th></th></tr>
${referrals.length ? referrals.map(
    (referral) => html`<tr><td><a href="${at.base}/entries/${referral.entryId}">${referral.email}</a></td><td><span class="pill">${referral.state}</span></td>
<td>${reasons(referral.reasons)}${referral.creditAt ? html` (until ${when(referral.creditAt)})` : ''}</td><td>${when(referral.confirmedAt)}</td><td>${decisions(at, referrerId, referral, 'entry')}</td></tr>`,
  ) : html`<tr><td colspan="5" class="muted">None yet.</td></tr>`}
</table></div>`;
}

/** What a change of place or credit was, in words. */
function changeWords(change: PlaceChangeView): string {
  const moved = change.places > 0 ? `, up ${change.places} place${change.places === 1 ? '' : 's'}` : change.places < 0 ? `, back ${-change.places} place${change.places === -1 ? '' : 's'}` : '';
  const why = change.reasons.filter((reason) => reason !== 'granted_by_team' && reason !== 'revoked_by_team');
  const because = why.length ? ` (${reasons(why)})` : '';
  switch (change.cause) {
    case 'joined':
      return `Confirmed and joined the line at #${change.place}`;
    case 'moved_up':
      return `Moved up by hand${moved}`;
    case 'referral_credited':
      return `A referral was credited${moved}`;
    case 'referral_held':
      return `A referral is held for its waiting period${because}`;
    case 'referral_withheld':
      return `A referral was withheld${because}`;
    case 'referral_granted':
      return `The team granted a referral${moved}`;
    case 'referral_revoked':
      return `The team revoked a referral${moved}`;
    case 'milestone':
      return `Reached a milestone${moved}`;
    case 'referral_places_changed':
      return `The product's places per referral changed${moved}`;
    case 'invitation_expired':
      return `The invitation expired unused and the entry went back into the line${moved}`;
  }
}

/** The milestones an entry reached, for its page. */
export function milestonesTable(reached: ReachedMilestone[]): SafeHtml | string {
  if (reached.length === 0) return '';
  return html`<h2 style="font-size:1.05rem">Milestones reached</h2>
<div class="scroll"><table><tr><th>Referrals</th><th>Milestone</th><th>Places</th><th>Reached</th></tr>
${reached.map((milestone) => html`<tr><td>${milestone.referrals}</td><td>${milestone.name}${milestone.message ? html`<br><span class="muted">${milestone.message}</span>` : ''}</td><td>${milestone.places}</td><td>${when(milestone.reachedAt.toISOString(), true)}</td></tr>`)}
</table></div>`;
}

/** An entry's history, newest first, for its page. */
export function timeline(history: PlaceChangeView[]): SafeHtml {
  return html`<h2 style="font-size:1.05rem">History</h2>
<div class="scroll"><table><tr><th>When</th><th>What</th></tr>
${history.length ? history.map((change) => html`<tr><td>${when(change.at, true)}</td><td>${changeWords(change)}</td></tr>`) : html`<tr><td colspan="2" class="muted">Nothing yet.</td></tr>`}
</table></div>`;
}

/** The product's withheld referrals, for the team to grant or revoke. */
export function reviewPage(at: ProductPage, items: ReferralToReview[], shown: number, leaders: Referrer[] | null, said?: Said): string {
  return frame(
    'Referrals to review',
    html`<h1>Referrals to review</h1>
<p class="muted">Referrals the rules withheld (Settings, referral protection), newest first. Grant one to credit its referrer at once; revoke it to leave it withheld and off this list.</p>
<div class="scroll"><table><tr><th>Referrer</th><th>Referred</th><th>Why</th><th>Confirmed</th><th></th></tr>
${items.length ? items.map(
      (item) => html`<tr><td><a href="${at.base}/entries/${item.referrerId}">${item.referrerEmail}</a></td><td><a href="${at.base}/entries/${item.entryId}">${item.email}</a></td>
<td>${reasons(item.reasons)}</td><td>${when(item.confirmedAt)}</td><td>${decisions(at, item.referrerId, item, 'review')}</td></tr>`,
    ) : html`<tr><td colspan="5" class="muted">Nothing to review.</td></tr>`}
</table></div>${items.length === shown ? html`<p class="muted">The newest ${shown}.</p>` : ''}
${leaderboardTable(at, leaders)}`,
    bar(at.identity, at, 'referrals'),
    said,
  );
}

/** The leaderboard as the team sees it: whole addresses, each linked to its entry. */
function leaderboardTable(at: ProductPage, leaders: Referrer[] | null): SafeHtml {
  if (!leaders) return html`<h2 style="font-size:1.05rem">Leaderboard</h2><p class="muted">Off in this mode; turn it on in <a href="${at.base}/settings/leaderboard">Settings</a>.</p>`;
  return html`<h2 style="font-size:1.05rem">Leaderboard</h2>
<p class="muted">The top referrers by credited referrals, as the status page and GET /public/v1/leaderboard show them with masked addresses; refreshed within a few seconds.</p>
<div class="scroll"><table><tr><th>#</th><th>Referrer</th><th>Referrals</th></tr>
${leaders.length ? leaders.map(
    (leader) => html`<tr><td>${leader.rank}</td><td><a href="${at.base}/entries/${leader.id}">${leader.email}</a></td><td>${leader.referrals}</td></tr>`,
  ) : html`<tr><td colspan="3" class="muted">No credited referral yet.</td></tr>`}
</table></div>`;
}

/** What revoking a referral does; its button posts the revoke. */
export function revokeReferralPage(at: ProductPage, referrer: { id: string; email: string }, referral: ReferralView, places: number, back: 'entry' | 'review'): string {
  const page = back === 'review' ? `${at.base}/referrals` : `${at.base}/entries/${referrer.id}`;
  const credited = referral.state === 'credited';
  return confirmationPage(at, back === 'review' ? 'referrals' : 'entries', {
    title: `Revoke the referral of ${referral.email}?`,
    lost: html`<p>${referral.email} signed up through the referral link of ${referrer.email}.
${credited ? `The referral no longer counts: ${referrer.email} has one referral less and moves back ${places} place${places === 1 ? '' : 's'}, if still waiting.` : 'The referral stays withheld and leaves the list of referrals to review.'}</p>
<p>A grant can credit it again later.</p>`,
    action: `${decisionPath(at, referrer.id, referral.id, 'revoke')}?back=${back}`,
    button: 'Revoke the referral',
    back: page,
  });
}
