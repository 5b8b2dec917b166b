import { html, MailLinks, mailFoot, SafeHtml, Translator } from '@app/shared';

export type { MailLinks } from '@app/shared';

export interface MailContent {
  subject: string;
  text: string;
  html: string;
}

/** The HTML frame every mail shares, with its unsubscribe and my-data links at the foot. */
export function mailLayout(t: Translator, body: SafeHtml, links: MailLinks): string {
  return html`<!doctype html><html><body style="font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:#1f2328;line-height:1.5">
<div style="max-width:520px;margin:0 auto;padding:24px">${body}
${mailFoot(t, links).html}
</div></body></html>`.value;
}

/** The same foot in a mail's text part. */
export function textFooter(t: Translator, links: MailLinks): string {
  return mailFoot(t, links).text;
}

/** The mails' one button. */
export function mailButton(href: string, label: string): SafeHtml {
  return html`<p><a href="${href}" style="display:inline-block;padding:10px 18px;background:#1f6feb;color:#fff;border-radius:6px;text-decoration:none">${label}</a></p>`;
}
