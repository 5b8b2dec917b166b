import { html } from '@app/shared';
import { MailContent, mailButton, mailLayout } from './layout';

/** `validFor`: how long the code works (INVITE_CODE_TTL, in words). */
export function invitationMail(productName: string, inviteUrl: string, unsubscribeUrl: string, validFor: string): MailContent {
  const yours = `The link is yours alone and works for ${validFor}.`;
  return {
    subject: `You're invited to ${productName}`,
    text: `Your wait is over: you're invited to ${productName}. Use your personal invitation link to get in:

${inviteUrl}

${yours}

Unsubscribe: ${unsubscribeUrl}
`,
    html: mailLayout(
      html`<p>Your wait is over: you're invited to <strong>${productName}</strong>.</p>
${mailButton(inviteUrl, 'Accept my invitation')}
<p style="color:#59636e;font-size:13px">${yours}</p>`,
      unsubscribeUrl,
    ),
  };
}
