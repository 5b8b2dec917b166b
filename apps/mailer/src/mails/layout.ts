import { html, SafeHtml } from '@app/shared';

export interface MailContent {
  subject: string;
  text: string;
  html: string;
}

/** The links at the foot of every mail: the mail's own unsubscribe link, and the product's my-data page (null without a publishable key in use). */
export interface MailLinks {
  unsubscribe: string;
  myData: string | null;
}

/** The HTML frame every mail shares, with its unsubscribe and my-data links at the foot. */
export function mailLayout(body: SafeHtml, links: MailLinks): string {
  const myData = links.myData ? html` · <a href="${links.myData}" style="color:#59636e">See or delete your data</a>` : '';
  return html`<!doctype html><html><body style="font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:#1f2328;line-height:1.5">
<div style="max-width:520px;margin:0 auto;padding:24px">${body}
<p style="color:#59636e;font-size:12px;margin-top:32px"><a href="${links.unsubscribe}" style="color:#59636e">Unsubscribe</a>${myData}</p>
</div></body></html>`.value;
}

/** The same foot in a mail's text part. */
export function textFooter(links: MailLinks): string {
  return `Unsubscribe: ${links.unsubscribe}
${links.myData ? `See or delete your data: ${links.myData}\n` : ''}`;
}

/** The mails' one button. */
export function mailButton(href: string, label: string): SafeHtml {
  return html`<p><a href="${href}" style="display:inline-block;padding:10px 18px;background:#1f6feb;color:#fff;border-radius:6px;text-decoration:none">${label}</a></p>`;
}
