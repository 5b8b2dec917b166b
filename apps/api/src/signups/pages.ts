import { html, Milestone, SafeHtml } from '@app/shared';
import { page } from '../common/html';
import type { Leader } from '../leaderboard/leaderboard.dto';
import type { ConfirmStatus, Friends } from './signups.service';

export function signupPage(productName: string, key: string, ref: string | undefined): string {
  return page(
    `Join the ${productName} waitlist`,
    html`<h1>Join the ${productName} waitlist</h1>
<form method="post" action="/public/v1/signups">
  <input type="hidden" name="key" value="${key}">
  ${ref ? html`<input type="hidden" name="ref" value="${ref}">` : ''}
  <label for="email">Email address</label>
  <input id="email" type="email" name="email" required autocomplete="email" maxlength="254">
  <button type="submit">Join the waitlist</button>
</form>
<p class="muted">We will send you a mail to confirm your address.</p>`,
  );
}

/** The sign-up form's result, and so the embedded form's: with the race the person is joining, when the product shows it. */
export function checkInboxPage(productName: string, leaders: Leader[] | null): string {
  return page(
    'Check your inbox',
    html`<h1>Check your inbox</h1>
<p>If the address can join the ${productName} waitlist, a confirmation mail is on its way.
Open it and press the button to take your place in line.</p>
${leaderboard(leaders)}`,
  );
}

export function confirmPage(status: ConfirmStatus): string {
  switch (status.state) {
    case 'pending':
      return page(
        'Confirm your address',
        html`<h1>Confirm your address</h1>
<p>Press the button to confirm your address and join the ${status.productName} waitlist.</p>
<form method="post"><button type="submit">Confirm my address</button></form>
${myData(status.myDataLink)}`,
      );
    case 'confirmed':
      return page(
        "You're on the list",
        html`<h1>You're on the ${status.productName} waitlist</h1>
<p>Your place in line:</p><p class="place">#${status.place}</p>
<p class="muted">Estimated wait: ${waitInWords(status.estimatedWaitDays)}</p>
${referral(status.referralLink)}
${friendsInWords(status.friends)}
${milestones(status.milestones)}
${leaderboard(status.leaderboard)}
${myData(status.myDataLink)}`,
      );
    case 'invited':
      return page(
        "You're invited",
        html`<h1>You're invited</h1><p>Your invitation to ${status.productName} has been sent; look for it in your inbox.</p>
${myData(status.myDataLink)}`,
      );
  }
}

/** The foot of the status page: where the person sees, downloads or deletes what the list keeps. */
function myData(link: string | null): SafeHtml | string {
  if (!link) return '';
  return html`<p class="muted"><a href="${link}">See, download or delete your data</a></p>`;
}

function referral(link: string | null): SafeHtml | string {
  if (!link) return '';
  return html`<p>Share your link: every friend who joins and confirms through it moves you up the line.</p>
<p><code>${link}</code></p>`;
}

/** "3 friends moved you up 3 places; 1 is still being checked": credit held back is counted, never explained. */
export function friendsInWords({ credited, places, beingChecked }: Friends): SafeHtml | string {
  const friends = (count: number) => `${count} friend${count === 1 ? '' : 's'}`;
  const parts: string[] = [];
  if (credited > 0) parts.push(places > 0 ? `${friends(credited)} moved you up ${places} place${places === 1 ? '' : 's'}` : `${friends(credited)} joined through your link`);
  if (beingChecked > 0) parts.push(parts.length ? `${beingChecked} ${beingChecked === 1 ? 'is' : 'are'} still being checked` : `${friends(beingChecked)} ${beingChecked === 1 ? 'is' : 'are'} still being checked`);
  if (parts.length === 0) return '';
  return html`<p>${parts.join('; ')}.</p>`;
}

/** The milestone rewards the person reached, with the team's line for each. */
function milestones(reached: Milestone[]): SafeHtml | string {
  if (reached.length === 0) return '';
  return html`<h2>Milestones reached</h2>
<ul>${reached.map((milestone) => html`<li><strong>${milestone.name}</strong>${milestone.message ? html`: ${milestone.message}` : ''}</li>`)}</ul>`;
}

/** The product's top referrers, masked, when it shows a leaderboard. */
function leaderboard(leaders: Leader[] | null): SafeHtml | string {
  if (!leaders) return '';
  return html`<h2>Leaderboard</h2>
${leaders.length ? html`<ol>${leaders.map((leader) => html`<li>${leader.email}: ${leader.referrals} friend${leader.referrals === 1 ? '' : 's'}</li>`)}</ol>` : html`<p class="muted">Nobody has brought a friend yet: be the first.</p>`}`;
}

export function unsubscribePage(productName: string): string {
  return page(
    'Unsubscribe',
    html`<h1>Leave the ${productName} waitlist?</h1>
<p>Your address will be removed from the waitlist and you will get no more mail about it.</p>
<form method="post"><button class="danger" type="submit">Unsubscribe</button></form>`,
  );
}

export function unsubscribedPage(): string {
  return page('Unsubscribed', html`<h1>You're unsubscribed</h1><p>Your address is no longer on the waitlist.</p>`);
}

/** The estimated wait as the person reads it (LineService.standing, estimatedWaitDays). */
export function waitInWords(days: number | null): string {
  if (days === null) return 'not enough data yet';
  return days <= 1 ? 'about a day' : `about ${days} days`;
}
