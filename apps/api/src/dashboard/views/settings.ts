import { html, SafeHtml } from '@app/shared';
import type { ProductSettings } from '../../products/products.service';
import type { ProductPage } from '../product-page';
import { bar, frame } from './layout';

type SettingsValues = { [K in keyof ProductSettings]: string | number | null };

/** The settings form, filled with the product's settings or with what was typed and refused. */
export function settingsPage(at: ProductPage, values: SettingsValues, notice?: { saved?: boolean; error?: string }): string {
  const { identity, product } = at;
  const field = (name: keyof ProductSettings, label: string, type: string, hint: string, extra = '') =>
    html`<label for="${name}">${label}</label><input id="${name}" name="${name}" type="${type}" value="${values[name] ?? ''}"${new SafeHtml(extra)}>
<p class="muted">${hint}</p>`;
  return frame(
    'Settings',
    html`<h1>Settings of ${product.name}</h1>
${notice?.saved ? html`<p role="status">Saved.</p>` : ''}
${notice?.error ? html`<p role="alert" style="color:#cf222e">${notice.error}</p>` : ''}
<form method="post" action="${at.base}/settings" class="card settings"><input type="hidden" name="_csrf" value="${identity.csrfToken}">
${field('name', 'Name', 'text', 'Shown on the hosted pages and in mails.', ' required maxlength="100"')}
${field('senderName', 'Mail sender name', 'text', 'The name mails come from; the product name when empty.', ' maxlength="100"')}
${field('inviteUrl', 'Invite URL', 'url', 'Invitation mails link here with ?invite=<code>; the service’s own address when empty.')}
${field('signupUrl', 'Sign-up page URL', 'url', 'Referral links point here with ?ref=<code>; the hosted sign-up page when empty.')}
${field('referralPlaces', 'Referral places', 'number', 'Places an entry moves up for each friend who confirms. A change moves everyone waiting to their new place (live and test).', ' required min="0" max="9999"')}
<button type="submit">Save</button></form>`,
    bar(identity, at, 'settings'),
  );
}
