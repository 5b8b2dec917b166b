import { Attribution, ChallengeMode, html, LANGUAGE_NAMES, LOCALES, Milestone, Question, SafeHtml, Translator } from '@app/shared';
import { page } from '../common/html';
import type { Leader } from '../leaderboard/leaderboard.dto';
import type { ConfirmStatus, Friends } from './entry-status.service';
import { attributionFields, questionFields } from './question-fields';
import { shareLinks } from './share-links';
import { FormSignals, HONEYPOT_FIELD } from './signup-signals';

/**
 * The honeypot: a field no person sees (off-screen), hears (aria-hidden) or reaches (out of the tab
 * order), and no browser fills in (autocomplete off); a bot that fills every field fills it.
 */
const HONEYPOT = html`<div aria-hidden="true" style="position:absolute;left:-10000px;top:auto;width:1px;height:1px;overflow:hidden"><label for="${HONEYPOT_FIELD}">Website</label><input id="${HONEYPOT_FIELD}" type="text" name="${HONEYPOT_FIELD}" value="" tabindex="-1" autocomplete="off"></div>`;

/** The product's bot signals in the form, nothing while they are off. */
const signalFields = ({ honeypot, formToken }: FormSignals) =>
  html`${formToken ? html`<input type="hidden" name="formToken" value="${formToken}">` : ''}${honeypot ? HONEYPOT : ''}`;

/**
 * The hosted sign-up form: the address, the product's questions (in the team's own words), and the visit's
 * attribution in hidden fields; with the product's challenge on, the script that solves it (/challenge.js).
 */
export function signupPage(
  t: Translator,
  productName: string,
  key: string,
  ref: string | undefined,
  questions: Question[] = [],
  attribution: Attribution | null = null,
  signals: FormSignals = {},
  challenge: ChallengeMode = 'off',
): string {
  return page(
    t.text('page.signup.title', { product: productName }),
    html`<h1>${t.html('page.signup.title', { product: productName })}</h1>
<form method="post" action="/public/v1/signups"${challenge === 'off' ? '' : html` data-challenge="${challenge}"`}>
  <input type="hidden" name="key" value="${key}">
  ${ref ? html`<input type="hidden" name="ref" value="${ref}">` : ''}
  ${attributionFields(attribution)}
  <label for="email">${t.text('page.signup.email')}</label>
  <input id="email" type="email" name="email" required autocomplete="email" maxlength="254">
  ${questionFields(t, questions)}
  ${signalFields(signals)}
  ${challenge === 'off' ? '' : challengeFields(t, challenge)}
  <button type="submit"${challenge === 'required' ? ' disabled' : ''}>${t.text('page.signup.submit')}</button>
</form>
<p class="muted">${t.text('page.signup.note')}</p>`,
    t.locale,
  );
}

/**
 * The challenge's hidden field and its script; required also shows the check as a step, the button
 * waiting for it. Without JavaScript nothing can solve it: the form says so (docs/decisions/bot-defence.md).
 */
function challengeFields(t: Translator, challenge: Exclude<ChallengeMode, 'off'>): SafeHtml {
  const step = challenge === 'required' ? html`<p class="muted challenge" role="status" data-checking="${t.text('page.signup.checking')}" data-checked="${t.text('page.signup.checked')}"></p>` : '';
  return html`<input type="hidden" name="challenge" value="">
  ${step}
  <noscript><p>${t.text('page.signup.needsScript')}</p></noscript>
  <script src="/challenge.js" defer></script>`;
}

/** The sign-up form's result, and so the embedded form's: with the race the person is joining, when the product shows it. */
export function checkInboxPage(t: Translator, productName: string, leaders: Leader[] | null): string {
  return page(
    t.text('page.sent.title'),
    html`<h1>${t.text('page.sent.title')}</h1>
<p>${t.html('page.sent.body', { product: productName })}</p>
${leaderboard(t, leaders)}`,
    t.locale,
  );
}

/** The page behind a confirmation link, in the entry's language, with the switch to another (`token`: the link's). */
export function confirmPage(t: Translator, status: ConfirmStatus, token: string): string {
  const product = status.productName;
  const switcher = languageSwitch(t, token);
  switch (status.state) {
    case 'pending':
      return page(
        t.text('page.pending.title'),
        html`<h1>${t.text('page.pending.title')}</h1>
<p>${t.html('page.pending.body', { product })}</p>
<form method="post"><button type="submit">${t.text('page.pending.submit')}</button></form>
${switcher}
${myData(t, status.myDataLink)}`,
        t.locale,
      );
    case 'confirmed':
      return page(
        t.text('page.status.title'),
        html`<h1>${t.html('page.status.heading', { product })}</h1>
<p>${t.text('page.status.place')}</p><p class="place">#${status.place}</p>
<p class="muted">${status.estimatedWaitDays === null ? t.text('page.status.waitUnknown') : t.text('page.status.wait', { days: Math.max(1, status.estimatedWaitDays) })}</p>
${referral(t, product, status.referralLink)}
${friendsInWords(t, status.friends)}
${milestones(t, status.milestones)}
${leaderboard(t, status.leaderboard)}
${switcher}
${myData(t, status.myDataLink)}`,
        t.locale,
      );
    case 'invited':
      return page(
        t.text('page.invited.title'),
        html`<h1>${t.text('page.invited.title')}</h1><p>${t.html('page.invited.body', { product })}</p>
${switcher}
${myData(t, status.myDataLink)}`,
        t.locale,
      );
  }
}

/** A small form that changes the entry's language: its pages and mails from then on. */
function languageSwitch(t: Translator, token: string): SafeHtml {
  return html`<form method="post" action="/confirm/${encodeURIComponent(token)}/language" class="language">
<label for="locale">${t.text('page.status.language')}</label>
<select id="locale" name="locale">${LOCALES.map((locale) => html`<option value="${locale}" lang="${locale}"${locale === t.locale ? html` selected` : ''}>${LANGUAGE_NAMES[locale]}</option>`)}</select>
<button type="submit">${t.text('page.status.languageSubmit')}</button>
</form>`;
}

/** The foot of the status page: where the person sees, downloads or deletes what the list keeps. */
function myData(t: Translator, link: string | null): SafeHtml | string {
  if (!link) return '';
  return html`<p class="muted"><a href="${link}">${t.text('page.status.myData')}</a></p>`;
}

/**
 * The referral link, with the links that pass it on by mail and on the common networks; the copy button,
 * and the share button where the system has a share sheet, only where /share.js runs (they start hidden).
 * What is shared says the product's sign-up page's title, in the person's language.
 */
function referral(t: Translator, product: string, link: string | null): SafeHtml | string {
  if (!link) return '';
  const text = t.text('page.signup.title', { product });
  return html`<p>${t.text('page.status.share')}</p>
<div class="referral"><input type="text" readonly value="${link}" aria-label="${t.text('embed.yourLink')}">
<button type="button" data-copied="${t.text('embed.copied')}" hidden>${t.text('embed.copy')}</button>
<button type="button" data-share="${text}" hidden>${t.text('embed.share')}</button></div>
<ul class="share-links" aria-label="${t.text('embed.share')}">${shareLinks(link, text).map(({ network, href }) => html`<li><a href="${href}" rel="noopener" target="_blank"${network ? html` aria-label="${t.text('page.status.shareOn', { network })}"` : ''}>${network ?? t.text('page.status.shareMail')}</a></li>`)}</ul>
<script src="/share.js" defer></script>`;
}

/** "3 friends moved you up 3 places; 1 is still being checked": credit held back is counted, never explained. */
export function friendsInWords(t: Translator, friends: Friends): SafeHtml | string {
  const sentence = friendsSentence(t, friends);
  return sentence ? html`<p>${sentence}</p>` : '';
}

/** friendsInWords as plain text, '' when there is nothing to say (the script-tag form shows it too). */
export function friendsSentence(t: Translator, { credited, places, beingChecked }: Friends): string {
  const parts: string[] = [];
  if (credited > 0) parts.push(places > 0 ? t.text('page.status.movedUp', { friends: credited, places }) : t.text('page.status.joined', { friends: credited }));
  if (beingChecked > 0) parts.push(t.text(parts.length ? 'page.status.alsoChecked' : 'page.status.checked', { count: beingChecked }));
  return parts.length ? `${parts.join('; ')}.` : '';
}

/** The milestone rewards the person reached, with the team's line for each (in the team's own words). */
function milestones(t: Translator, reached: Milestone[]): SafeHtml | string {
  if (reached.length === 0) return '';
  return html`<h2>${t.text('page.status.milestones')}</h2>
<ul>${reached.map((milestone) => html`<li><strong>${milestone.name}</strong>${milestone.message ? html`: ${milestone.message}` : ''}</li>`)}</ul>`;
}

/** The product's top referrers, masked, when it shows a leaderboard. */
function leaderboard(t: Translator, leaders: Leader[] | null): SafeHtml | string {
  if (!leaders) return '';
  return html`<h2>${t.text('page.status.leaderboard')}</h2>
${leaders.length ? html`<ol>${leaders.map((leader) => html`<li>${t.html('page.status.leader', { email: leader.email, friends: leader.referrals })}</li>`)}</ol>` : html`<p class="muted">${t.text('page.status.noLeaders')}</p>`}`;
}

export function unsubscribePage(t: Translator, productName: string): string {
  return page(
    t.text('page.unsubscribe.title'),
    html`<h1>${t.html('page.unsubscribe.heading', { product: productName })}</h1>
<p>${t.text('page.unsubscribe.body')}</p>
<form method="post"><button class="danger" type="submit">${t.text('page.unsubscribe.submit')}</button></form>`,
    t.locale,
  );
}

export function unsubscribedPage(t: Translator): string {
  return page(t.text('page.unsubscribed.title'), html`<h1>${t.text('page.unsubscribed.heading')}</h1><p>${t.text('page.unsubscribed.body')}</p>`, t.locale);
}
