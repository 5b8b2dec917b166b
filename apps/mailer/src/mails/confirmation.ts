import { escapeHtml } from '@app/shared';
import { MailContent, mailLayout } from './layout';

export function confirmationMail(productName: string, confirmUrl: string, unsubscribeUrl: string): MailContent {
  return {
    subject: `Confirm your address for the ${productName} waitlist`,
    text: `You asked to join the ${productName} waitlist. Confirm your address to take your place in line:

${confirmUrl}

If this was not you, ignore this mail: without confirmation the address is removed in 14 days.

Unsubscribe: ${unsubscribeUrl}
`,
    html: mailLayout(
      `<p>You asked to join the <strong>${escapeHtml(productName)}</strong> waitlist. Confirm your address to take your place in line.</p>
<p><a href="${escapeHtml(confirmUrl)}" style="display:inline-block;padding:10px 18px;background:#1f6feb;color:#fff;border-radius:6px;text-decoration:none">Confirm my address</a></p>
<p style="color:#59636e;font-size:13px">If this was not you, ignore this mail: without confirmation the address is removed in 14 days.</p>`,
      unsubscribeUrl,
    ),
  };
}
