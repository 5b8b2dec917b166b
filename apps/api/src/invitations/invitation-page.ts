import { html, invitationLink, Translator } from '@app/shared';
import { page, renderMessagePage } from '../common/html';
import type { InvitationStanding } from './invite-codes.service';

export interface InvitationPageContext {
  code: string;
  /** PUBLIC_BASE_URL, for the developer's example call. */
  baseUrl: string;
  /** The entry's language, or for a code that names none the browser's (the developers' note stays English). */
  t: Translator;
}

/**
 * The hosted invitation page and its status: 200 for a working code, 410 for a used or expired one
 * (the holder learns why, never the address), 404 for anything else.
 */
export function invitationPage(standing: InvitationStanding, { code, baseUrl, t }: InvitationPageContext): { status: number; body: string } {
  switch (standing.state) {
    case 'unknown':
      return {
        status: 404,
        body: renderMessagePage(t.text('page.invitation.unknownTitle'), t.text('page.invitation.unknownBody'), t.locale),
      };
    case 'used':
      return {
        status: 410,
        body: renderMessagePage(t.text('page.invitation.usedTitle'), t.text('page.invitation.usedBody', { product: standing.productName }), t.locale),
      };
    case 'expired':
      return {
        status: 410,
        body: renderMessagePage(
          t.text('page.invitation.expiredTitle'),
          t.text('page.invitation.expiredBody', { product: standing.productName, duration: t.duration(standing.lifeMs, 'for') }),
          t.locale,
        ),
      };
    case 'valid': {
      const { productName, email, inviteUrl, mode } = standing;
      const key = `sk_${mode}_…`;
      const curl = `curl -X POST ${baseUrl}/api/v1/invites/verify -H 'Authorization: Bearer ${key}' -H 'content-type: application/json' -d '{"token":"${code}"}'`;
      return {
        status: 200,
        body: page(
          t.text('page.invitation.title', { product: productName }),
          html`<h1>${t.html('page.invitation.title', { product: productName })}</h1>
<p>${t.html('page.invitation.for', { email: html`<strong>${email}</strong>`, until: t.dateTime(standing.expiresAt) })}</p>
<p>${t.html('page.invitation.how', { product: productName })}</p>
${
  inviteUrl
    ? html`<p><a href="${invitationLink(inviteUrl, baseUrl, code)}">${t.text('page.invitation.continue', { product: productName })}</a></p>`
    : html`<p class="muted note">For developers: ${productName} has no invite URL, so its invitation mails link to this page
of the waitlist service. Set one (the dashboard's Settings, or <code>--invite-url</code>) and the mails link to your own
sign-up with <code>?invite=&lt;code&gt;</code>. There your backend calls <code>POST /api/v1/invites/verify</code> with
<code>{"token": "&lt;code&gt;"}</code> and the product's secret key (${key}): valid true, show the address. When the
account is created it calls <code>POST /api/v1/invites/redeem</code> with the same token, and creates the account only
if valid is true. This page only reads: it neither verifies nor redeems. Try verify:</p>
<p class="muted note"><code class="command">${curl}</code></p>`
}`,
          t.locale,
        ),
      };
    }
  }
}
