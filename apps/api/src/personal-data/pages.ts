import { Entry, html, MY_DATA_LINK_MS, translator } from '@app/shared';
import { inUtc, page } from '../common/html';

/** The form of a product's my-data page: an address, for a mail with a link. */
export function askPage(productName: string, key: string): string {
  return page(
    'Your data',
    html`<h1>Your data on the ${productName} waitlist</h1>
<p>Enter your address: we send you a link to see what the waitlist keeps about you, download it, or delete it.</p>
<form method="post" action="/w/${key}/my-data">
  <label for="email">Email address</label>
  <input id="email" type="email" name="email" required autocomplete="email" maxlength="254">
  <button type="submit">Send me the link</button>
</form>`,
  );
}

/** The same page for every address, on the list or not. */
export function linkSentPage(productName: string): string {
  return page(
    'Check your inbox',
    html`<h1>Check your inbox</h1>
<p>If the address is on the ${productName} waitlist, a mail with a link to your data is on its way.
The link works for ${translator('en').duration(MY_DATA_LINK_MS, 'for')}.</p>`,
  );
}

/** What the link shows: the entry, and the two things the person can do with it. */
export function dataPage(token: string, productName: string, entry: Entry): string {
  const base = `/my-data/${token}`;
  const when = (value: string | null) => (value ? inUtc(new Date(value)) : 'not yet');
  return page(
    'Your data',
    html`<h1>Your data on the ${productName} waitlist</h1>
<p>Address: <strong>${entry.email}</strong></p>
<p>State: ${entry.state}</p>
<p class="muted">Signed up ${inUtc(new Date(entry.createdAt))}; confirmed ${when(entry.confirmedAt)}; invited ${when(entry.invitedAt)}; invitation used ${when(entry.redeemedAt)}.
Friends who joined through your link: ${String(entry.referrals)}.</p>
<p>The download holds all of it: your place history, the mails sent to you, the friends you brought (their addresses masked) and your referral credit.</p>
<p><a href="${base}/export">Download my data</a> (a JSON file)</p>
<p><a href="${base}/delete">Delete my data</a></p>`,
  );
}

/** The question before the deletion: what will be lost; only its button deletes. */
export function deleteAskPage(token: string, productName: string): string {
  return page(
    'Delete your data?',
    html`<h1>Delete your data from the ${productName} waitlist?</h1>
<p>Your place in line, your referral link and what your friends earned you are lost, and cannot be brought back.
Only a one-way fingerprint of your address is kept, so that no import or referral adds you again; you may still join again yourself.</p>
<form method="post" action="/my-data/${token}/delete"><button class="danger" type="submit">Delete my data</button></form>
<p><a href="/my-data/${token}">Keep my data</a></p>`,
  );
}

export function deletedPage(productName: string): string {
  return page('Your data is deleted', html`<h1>Your data is deleted</h1><p>The ${productName} waitlist no longer keeps your address or anything about you.</p>`);
}
