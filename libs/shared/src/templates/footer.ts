import { html, SafeHtml } from '../domain/html';
import type { Translator } from '../i18n/messages';
import { TemplateRefused, TemplateSource } from './engine';
import { mailDocument, UnsafeHtml } from './mail-html';

/** The links at the foot of every mail: the mail's own unsubscribe link, and the product's my-data page (null without a publishable key in use). */
export interface MailLinks {
  unsubscribe: string;
  myData: string | null;
}

/** A mail's links under PUBLIC_BASE_URL: its unsubscribe token's, and the my-data page of the product's publishable key in use (none without one). */
export function mailLinks(publicBaseUrl: string, unsubscribeToken: string, publishableKey: string | null): MailLinks {
  return {
    unsubscribe: `${publicBaseUrl}/unsubscribe/${unsubscribeToken}`,
    myData: publishableKey ? `${publicBaseUrl}/w/${encodeURIComponent(publishableKey)}/my-data` : null,
  };
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
 * A product's mail with the service's foot after its body, in the text and in the HTML, so that no
 * template can leave it out or hide it: the HTML becomes a document whose body holds the template's
 * content, then the foot (mailDocument). Refused (TemplateRefused) for HTML that could hide the foot.
 */
export function withFoot(mail: TemplateSource, t: Translator, links: MailLinks): TemplateSource {
  const foot = mailFoot(t, links);
  let document: string;
  try {
    document = mailDocument(mail.html, foot.html.value);
  } catch (error) {
    if (error instanceof UnsafeHtml) throw new TemplateRefused('html', undefined, undefined, error.message);
    throw error;
  }
  return { subject: mail.subject, text: `${mail.text.trimEnd()}\n\n${foot.text}`, html: document };
}
