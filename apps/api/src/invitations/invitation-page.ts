import { describeDuration, html, invitationLink } from '@app/shared';
import { inUtc, page, renderMessagePage } from '../common/html';
import type { InvitationStanding } from './invite-codes.service';

export interface InvitationPageContext {
  code: string;
  /** PUBLIC_BASE_URL, for the developer's example call. */
  baseUrl: string;
}

/**
 * The hosted invitation page and its status: 200 for a working code, 410 for a used or expired one
 * (the holder learns why, never the address), 404 for anything else.
 */
export function invitationPage(standing: InvitationStanding, { code, baseUrl }: InvitationPageContext): { status: number; body: string } {
  switch (standing.state) {
    case 'unknown':
      return {
        status: 404,
        body: renderMessagePage(
          'This invitation link is not valid',
          'The link may be incomplete, or a newer invitation replaced it: open the link in the newest invitation mail you received.',
        ),
      };
    case 'used':
      return {
        status: 410,
        body: renderMessagePage('This invitation was already used', `It was used to create your ${standing.productName} account: sign in to ${standing.productName} instead.`),
      };
    case 'expired':
      return {
        status: 410,
        body: renderMessagePage('This invitation has expired', `Invitations to ${standing.productName} work for ${describeDuration(standing.lifeMs)}. Ask ${standing.productName} for a new one.`),
      };
    case 'valid': {
      const { productName, email, inviteUrl, mode } = standing;
      const key = `sk_${mode}_…`;
      const curl = `curl -X POST ${baseUrl}/api/v1/invites/verify -H 'Authorization: Bearer ${key}' -H 'content-type: application/json' -d '{"token":"${code}"}'`;
      return {
        status: 200,
        body: page(
          `You're invited to ${productName}`,
          html`<h1>You're invited to ${productName}</h1>
<p>This invitation is for <strong>${email}</strong>. It is valid until ${inUtc(standing.expiresAt)}.</p>
<p>When you sign up for ${productName}, its sign-up checks your invitation and uses it up as your account is created;
the invitation also proves that this address is yours. Opening this page does not use it.</p>
${
  inviteUrl
    ? html`<p><a href="${invitationLink(inviteUrl, baseUrl, code)}">Continue to ${productName}</a></p>`
    : html`<p class="muted note">For developers: ${productName} has no invite URL, so its invitation mails link to this page
of the waitlist service. Set one (the dashboard's Settings, or <code>--invite-url</code>) and the mails link to your own
sign-up with <code>?invite=&lt;code&gt;</code>. There your backend calls <code>POST /api/v1/invites/verify</code> with
<code>{"token": "&lt;code&gt;"}</code> and the product's secret key (${key}): valid true, show the address. When the
account is created it calls <code>POST /api/v1/invites/redeem</code> with the same token, and creates the account only
if valid is true. This page only reads: it neither verifies nor redeems. Try verify:</p>
<p class="muted note"><code class="command">${curl}</code></p>`
}`,
        ),
      };
    }
  }
}
