import { html, SafeHtml } from '@app/shared';
import { page } from '../common/html';
import type { ConfirmStatus } from './signups.service';

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

export function checkInboxPage(productName: string): string {
  return page(
    'Check your inbox',
    html`<h1>Check your inbox</h1>
<p>If the address can join the ${productName} waitlist, a confirmation mail is on its way.
Open it and press the button to take your place in line.</p>`,
  );
}

export function confirmPage(status: ConfirmStatus): string {
  switch (status.state) {
    case 'pending':
      return page(
        'Confirm your address',
        html`<h1>Confirm your address</h1>
<p>Press the button to confirm your address and join the ${status.productName} waitlist.</p>
<form method="post"><button type="submit">Confirm my address</button></form>`,
      );
    case 'confirmed':
      return page(
        "You're on the list",
        html`<h1>You're on the ${status.productName} waitlist</h1>
<p>Your place in line:</p><p class="place">#${status.place}</p>
<p class="muted">Estimated wait: ${waitInWords(status.estimatedWaitDays)}</p>
${referral(status.referralLink)}`,
      );
    case 'invited':
      return page(
        "You're invited",
        html`<h1>You're invited</h1><p>Your invitation to ${status.productName} has been sent; look for it in your inbox.</p>`,
      );
  }
}

function referral(link: string | null): SafeHtml | string {
  if (!link) return '';
  return html`<p>Share your link: every friend who joins and confirms through it moves you up the line.</p>
<p><code>${link}</code></p>`;
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
