import { escapeHtml } from '@app/shared';
import { MailContent, mailLayout } from './layout';

export function invitationMail(productName: string, inviteUrl: string, unsubscribeUrl: string, validDays: number): MailContent {
  return {
    subject: `You're invited to ${productName}`,
    text: `Your wait is over: you're invited to ${productName}. Use your personal invitation link to get in:

${inviteUrl}

The link is yours alone and works for ${validDays} days.

Unsubscribe: ${unsubscribeUrl}
`,
    html: mailLayout(
      `<p>Your wait is over: you're invited to <strong>${escapeHtml(productName)}</strong>.</p>
<p><a href="${escapeHtml(inviteUrl)}" style="display:inline-block;padding:10px 18px;background:#1f6feb;color:#fff;border-radius:6px;text-decoration:none">Accept my invitation</a></p>
<p style="color:#59636e;font-size:13px">The link is yours alone and works for ${validDays} days.</p>`,
      unsubscribeUrl,
    ),
  };
}
