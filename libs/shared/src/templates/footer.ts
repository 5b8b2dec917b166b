import { html } from '../domain/html';
import type { TemplateSource } from './engine';

/**
 * A product's mail with the service's unsubscribe link after its body, in the text and in the HTML
 * (before </body> when the template wrote a whole document), so that no template can leave it out.
 */
export function withUnsubscribeFooter(mail: TemplateSource, unsubscribeUrl: string): TemplateSource {
  const footer = html`<p style="color:#59636e;font-size:12px;margin-top:32px"><a href="${unsubscribeUrl}" style="color:#59636e">Unsubscribe</a></p>`.value;
  const end = mail.html.toLowerCase().lastIndexOf('</body>');
  return {
    subject: mail.subject,
    text: `${mail.text.trimEnd()}\n\nUnsubscribe: ${unsubscribeUrl}\n`,
    html: end === -1 ? `${mail.html}\n${footer}` : `${mail.html.slice(0, end)}${footer}\n${mail.html.slice(end)}`,
  };
}
