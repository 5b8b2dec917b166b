import { html, Locale, pickLocale, Product, SafeHtml, translator, Translator } from '@app/shared';

/**
 * What every page, hosted or dashboard, shows the keyboard: a link to skip to the content, off screen
 * until focused, and a ring on whatever has focus: black, 3 px, 2 px out, so that it stands
 * out at least 3:1 from the light backgrounds and from the blue and red buttons alike.
 */
export const KEYBOARD_STYLE = `
  :focus-visible{outline:3px solid #000;outline-offset:2px}
  a.skip{position:absolute;left:.5rem;top:-4rem;z-index:1;padding:.5rem .9rem;background:#fff;color:#0969da;border:1px solid #d0d7de;border-radius:6px}
  a.skip:focus{top:.5rem}
`;

/** The first thing a keyboard reaches on every page: past the bar, to `<main id="main">` (focusable, so that focus moves there). */
export const skipLink = (label: string): SafeHtml => html`<a class="skip" href="#main">${label}</a>`;

const STYLE = `${KEYBOARD_STYLE}
  body{font:16px/1.5 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:#1f2328;background:#f6f8fa;margin:0}
  main{max-width:28rem;margin:10vh auto;background:#fff;border:1px solid #d0d7de;border-radius:12px;padding:2rem}
  h1{font-size:1.4rem;margin:0 0 .75rem}
  p{margin:.5rem 0}
  .muted{color:#59636e;font-size:.9rem}
  input[type=email],input[type=text]{width:100%;box-sizing:border-box;padding:.6rem;border:1px solid #d0d7de;border-radius:8px;font:inherit}
  button{margin-top:.75rem;padding:.6rem 1.2rem;border:0;border-radius:8px;background:#1f6feb;color:#fff;font:inherit;cursor:pointer}
  button.danger{background:#cf222e}
  .place{font-size:2.5rem;font-weight:700;margin:.25rem 0}
  form.language{margin-top:1.5rem;font-size:.9rem}
  form.language select{font:inherit;padding:.3rem}
  form.language button{margin:0 0 0 .5rem;padding:.35rem .8rem}
  .referral{display:flex;flex-wrap:wrap;gap:0 .5rem}
  .share-links{list-style:none;padding:0;margin:.75rem 0;display:flex;flex-wrap:wrap;gap:.25rem 1rem}
  code{background:#f6f8fa;padding:.2rem .4rem;border-radius:6px;word-break:break-all}
  .note code{word-break:normal;overflow-wrap:anywhere}
  .note code.command{display:block;padding:.5rem .6rem}
  @media (max-width:32rem){main{margin:1rem;padding:1.25rem}}
`;

/** The frame of every hosted page: small, no scripts, readable on a phone, in the language it is written in. */
export function page(title: string, body: SafeHtml, lang: Locale = 'en'): string {
  return html`<!doctype html>
<html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><meta name="referrer" content="no-referrer"><title>${title}</title>
<style>${new SafeHtml(STYLE)}</style></head>
<body>${skipLink(translator(lang).text('page.skip'))}<main id="main" tabindex="-1">${body}</main></body></html>`.value;
}

export function renderMessagePage(title: string, message: string, lang: Locale = 'en'): string {
  return page(title, html`<h1>${title}</h1><p>${message}</p>`, lang);
}

/** A time as pages show it (docs/decisions/dashboard.md: times in UTC): to the minute, or to the second. */
export function inUtc(value: Date, seconds = false): string {
  return `${value.toISOString().slice(0, seconds ? 19 : 16).replace('T', ' ')} UTC`;
}

/** The language of a page before there is an entry: the browser's, if we speak it, else the product's default. */
export function browserLanguage(product: Pick<Product, 'defaultLocale'>, accepted: string | undefined): Translator {
  return translator(pickLocale(accepted) ?? product.defaultLocale);
}
