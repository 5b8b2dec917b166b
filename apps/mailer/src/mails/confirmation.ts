import { html, Translator } from '@app/shared';
import { MailContent, MailLinks, mailButton, mailLayout, textFooter } from './layout';

/** `keptForMs`: how long an unconfirmed address stays (PENDING_ENTRY_TTL), said in the entry's language. */
export function confirmationMail(t: Translator, productName: string, confirmUrl: string, links: MailLinks, keptForMs: number): MailContent {
  const notYou = t.text('mail.confirmation.notYou', { duration: t.duration(keptForMs, 'in') });
  return {
    subject: t.text('mail.confirmation.subject', { product: productName }),
    text: `${t.text('mail.confirmation.lead', { product: productName })}

${confirmUrl}

${notYou}

${textFooter(t, links)}`,
    html: mailLayout(
      t,
      html`<p>${t.html('mail.confirmation.leadHtml', { product: html`<strong>${productName}</strong>` })}</p>
${mailButton(confirmUrl, t.text('mail.confirmation.button'))}
<p style="color:#59636e;font-size:13px">${notYou}</p>`,
      links,
    ),
  };
}
