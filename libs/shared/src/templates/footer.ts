import { html, SafeHtml } from '../domain/html';
import type { Translator } from '../i18n/messages';
import type { TemplateSource } from './engine';

/** The links at the foot of every mail: the mail's own unsubscribe link, and the product's my-data page (null without a publishable key in use). */
export interface MailLinks {
  unsubscribe: string;
  myData: string | null;
}

/** The foot every mail ends with, the default mails and the products' own alike, in the entry's language. */
export function mailFoot(t: Translator, links: MailLinks): { html: SafeHtml; text: string } {
  const myData = links.myData ? html` · <a href="${links.myData}" style="color:#59636e">${t.text('mail.myData')}</a>` : '';
  return {
    html: html`<p style="color:#59636e;font-size:12px;margin-top:32px"><a href="${links.unsubscribe}" style="color:#59636e">${t.text('mail.unsubscribe')}</a>${myData}</p>`,
    text: `${t.text('mail.unsubscribeLine', { url: links.unsubscribe })}\n${links.myData ? `${t.text('mail.myDataLine', { url: links.myData })}\n` : ''}`,
  };
}

/**
 * A product's mail with the service's foot after its body, in the text and in the HTML (before
 * </body> when the template wrote a whole document), so that no template can leave it out.
 */
export function withFoot(mail: TemplateSource, t: Translator, links: MailLinks): TemplateSource {
  const foot = mailFoot(t, links);
  const end = mail.html.toLowerCase().lastIndexOf('</body>');
  return {
    subject: mail.subject,
    text: `${mail.text.trimEnd()}\n\n${foot.text}`,
    html: end === -1 ? `${mail.html}\n${foot.html.value}` : `${mail.html.slice(0, end)}${foot.html.value}\n${mail.html.slice(end)}`,
  };
}
