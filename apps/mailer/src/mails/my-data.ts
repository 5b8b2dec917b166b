import { html, Translator } from '@app/shared';
import { MailContent, MailLinks, mailButton, mailLayout, textFooter } from './layout';

/** The answer to the my-data form: a signed link that works for `validForMs` (MY_DATA_LINK_MS), in the entry's language. */
export function myDataMail(t: Translator, productName: string, dataUrl: string, links: MailLinks, validForMs: number): MailContent {
  const notYou = t.text('mail.myData.notYou', { duration: t.duration(validForMs, 'for') });
  return {
    subject: t.text('mail.myData.subject', { product: productName }),
    text: `${t.text('mail.myData.lead', { product: productName })}

${dataUrl}

${notYou}

${textFooter(t, links)}`,
    html: mailLayout(
      t,
      html`<p>${t.html('mail.myData.leadHtml', { product: html`<strong>${productName}</strong>` })}</p>
${mailButton(dataUrl, t.text('mail.myData.button'))}
<p style="color:#59636e;font-size:13px">${notYou}</p>`,
      links,
    ),
  };
}
