import { Entry, html, MY_DATA_LINK_MS, Translator } from '@app/shared';
import { inUtc, page } from '../common/html';

/** The form of a product's my-data page: an address, for a mail with a link. */
export function askPage(t: Translator, productName: string, key: string): string {
  return page(
    t.text('page.myData.title'),
    html`<h1>${t.text('page.myData.heading', { product: productName })}</h1>
<p>${t.text('page.myData.ask')}</p>
<form method="post" action="/w/${key}/my-data">
  <label for="email">${t.text('page.signup.email')}</label>
  <input id="email" type="email" name="email" required autocomplete="email" maxlength="254">
  <button type="submit">${t.text('page.myData.send')}</button>
</form>`,
    t.locale,
  );
}

/** The same page for every address, on the list or not. */
export function linkSentPage(t: Translator, productName: string): string {
  return page(
    t.text('page.sent.title'),
    html`<h1>${t.text('page.sent.title')}</h1>
<p>${t.text('page.myData.sent', { product: productName, duration: t.duration(MY_DATA_LINK_MS, 'for') })}</p>`,
    t.locale,
  );
}

/** What the link shows, in the entry's language: the entry, and the two things the person can do with it. */
export function dataPage(t: Translator, token: string, productName: string, entry: Entry): string {
  const base = `/my-data/${token}`;
  // Times as every page writes them: English in the service's own form, the other languages in theirs.
  const when = (value: string | null) => (value ? (t.locale === 'en' ? inUtc(new Date(value)) : t.dateTime(new Date(value))) : t.text('page.myData.notYet'));
  return page(
    t.text('page.myData.title'),
    html`<h1>${t.text('page.myData.heading', { product: productName })}</h1>
<p>${t.html('page.myData.address', { email: html`<strong>${entry.email}</strong>` })}</p>
<p>${t.text('page.myData.state', { state: entry.state })}</p>
<p class="muted">${t.text('page.myData.times', { signedUp: when(entry.createdAt), confirmed: when(entry.confirmedAt), invited: when(entry.invitedAt), used: when(entry.redeemedAt), friends: entry.referrals })}</p>
<p>${t.text('page.myData.holds')}</p>
<p><a href="${base}/export">${t.text('page.myData.download')}</a> ${t.text('page.myData.json')}</p>
<p><a href="${base}/delete">${t.text('page.myData.delete')}</a></p>`,
    t.locale,
  );
}

/** The question before the deletion: what will be lost; only its button deletes. */
export function deleteAskPage(t: Translator, token: string, productName: string): string {
  return page(
    t.text('page.myData.deleteTitle'),
    html`<h1>${t.text('page.myData.deleteHeading', { product: productName })}</h1>
<p>${t.text('page.myData.deleteLost')}</p>
<form method="post" action="/my-data/${token}/delete"><button class="danger" type="submit">${t.text('page.myData.delete')}</button></form>
<p><a href="/my-data/${token}">${t.text('page.myData.keep')}</a></p>`,
    t.locale,
  );
}

export function deletedPage(t: Translator, productName: string): string {
  return page(t.text('page.myData.deletedTitle'), html`<h1>${t.text('page.myData.deletedTitle')}</h1><p>${t.text('page.myData.deletedBody', { product: productName })}</p>`, t.locale);
}
