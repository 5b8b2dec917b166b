import { html, MessageId, Translator } from '@app/shared';
import { MailContent, MailLinks, mailButton, mailLayout, textFooter } from './layout';

/** `validForMs`: how long the code works (INVITE_CODE_TTL or the claim window), said in the entry's language. */
export function invitationMail(t: Translator, productName: string, inviteUrl: string, links: MailLinks, validForMs: number): MailContent {
  return invitationContent(t, 'mail.invitation', productName, inviteUrl, links, t.text('mail.invitation.yours', { duration: t.duration(validForMs, 'for') }));
}

/**
 * The one reminder of an invitation not redeemed yet, with the same link as the invitation (no new
 * code). `leftMs`: how long the link still works.
 */
export function invitationReminderMail(t: Translator, productName: string, inviteUrl: string, links: MailLinks, leftMs: number): MailContent {
  return invitationContent(t, 'mail.reminder', productName, inviteUrl, links, t.text('mail.reminder.ends', { duration: t.duration(leftMs, 'in') }));
}

/** An invitation and its reminder differ in their words only. */
function invitationContent(t: Translator, kind: 'mail.invitation' | 'mail.reminder', productName: string, inviteUrl: string, links: MailLinks, note: string): MailContent {
  const words = (part: 'subject' | 'lead' | 'leadHtml') => `${kind}.${part}` as MessageId;
  return {
    subject: t.text(words('subject'), { product: productName }),
    text: `${t.text(words('lead'), { product: productName })}

${inviteUrl}

${note}

${textFooter(t, links)}`,
    html: mailLayout(
      t,
      html`<p>${t.html(words('leadHtml'), { product: html`<strong>${productName}</strong>` })}</p>
${mailButton(inviteUrl, t.text('mail.invitation.button'))}
<p style="color:#59636e;font-size:13px">${note}</p>`,
      links,
    ),
  };
}
