import { html } from '@app/shared';
import { MailContent, MailLinks, mailButton, mailLayout, textFooter } from './layout';

/** `keptFor`: how long an unconfirmed address stays (PENDING_ENTRY_TTL, in words). */
export function confirmationMail(productName: string, confirmUrl: string, links: MailLinks, keptFor: string): MailContent {
  const notYou = `If this was not you, ignore this mail: without confirmation the address is removed in ${keptFor}.`;
  return {
    subject: `Confirm your address for the ${productName} waitlist`,
    text: `You asked to join the ${productName} waitlist. Confirm your address to take your place in line:

${confirmUrl}

${notYou}

${textFooter(links)}`,
    html: mailLayout(
      html`<p>You asked to join the <strong>${productName}</strong> waitlist. Confirm your address to take your place in line.</p>
${mailButton(confirmUrl, 'Confirm my address')}
<p style="color:#59636e;font-size:13px">${notYou}</p>`,
      links,
    ),
  };
}
