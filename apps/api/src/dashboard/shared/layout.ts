import { html, SafeHtml } from '@app/shared';
import type { DashboardIdentity } from '../auth/dashboard-auth.service';
import type { Notice } from '../auth/notice';
import { inUtc, KEYBOARD_STYLE, skipLink } from '../../common/html';
import type { ProductPage } from './product-page';

const STYLE = `${KEYBOARD_STYLE}
  body{font:15px/1.5 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:#1f2328;background:#f6f8fa;margin:0}
  header{display:flex;flex-wrap:wrap;gap:.4rem 1rem;align-items:center;padding:.6rem 1.5rem;background:#fff;border-bottom:1px solid #d0d7de}
  header .grow{flex:1} header a{color:#1f2328;text-decoration:none;font-weight:600}
  .mode a{padding:.15rem .6rem;border-radius:999px;font-weight:500} .mode a.on{background:#1f2328;color:#fff}
  .mode a.on.test{background:#bf8700}
  main{max-width:72rem;margin:1.5rem auto;padding:0 1.5rem}
  h1{font-size:1.3rem;margin:0 0 1rem}
  .scroll{overflow-x:auto}
  table{width:100%;border-collapse:collapse;background:#fff;border:1px solid #d0d7de;border-radius:8px}
  th,td{text-align:left;padding:.45rem .7rem;border-bottom:1px solid #eaeef2;font-size:.9rem}
  th{background:#f6f8fa;font-weight:600} .fields th{width:12rem}
  form.inline{display:inline} input,select{padding:.4rem;border:1px solid #d0d7de;border-radius:6px;font:inherit}
  button{padding:.4rem .9rem;border:0;border-radius:6px;background:#1f6feb;color:#fff;font:inherit;cursor:pointer}
  button.link{background:none;color:#59636e;padding:0}
  button.secondary{background:#fff;color:#1f2328;border:1px solid #d0d7de} button.danger{background:#cf222e}
  a.button{display:inline-block;padding:.4rem .9rem;border-radius:6px;color:#fff;text-decoration:none} a.button.danger{background:#cf222e}
  a.button.secondary{background:#fff;color:#1f2328;border:1px solid #d0d7de}
  .card.confirm{max-width:40rem;overflow-wrap:anywhere} .card.confirm p{margin:0 0 .8rem}
  nav{display:flex;flex-wrap:wrap;gap:.2rem .9rem} nav a{font-weight:400} nav a.on{font-weight:700}
  a{color:#0969da} code[data-secret]{user-select:all;font-size:1rem}
  .pill.succeeded,.pill.redeemed{background:#dafbe1} .pill.failed{background:#ffebe9} .pill.pending{background:#fff8c5} .pill.invited{background:#ddf4ff}
  .muted{color:#59636e} .pill{padding:.05rem .5rem;border-radius:999px;background:#eaeef2;font-size:.8rem}
  .login{max-width:22rem;margin:12vh auto;background:#fff;border:1px solid #d0d7de;border-radius:12px;padding:2rem}
  .login input{width:100%;box-sizing:border-box;margin:.2rem 0 .8rem}
  h2{font-size:1.05rem;margin:1.5rem 0 .6rem}
  .notice{background:#fff8c5;border:1px solid #d4a72c;border-radius:8px;padding:.8rem;margin-bottom:1rem}
  .said{background:#dafbe1;border:1px solid #4ac26b;border-radius:8px;padding:.6rem .8rem;margin:0 0 1rem;overflow-wrap:anywhere}
  .said.refused{background:#ffebe9;border-color:#ff8182} .said ul{margin:.4rem 0 0;padding-left:1.2rem}
  .card{background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:.8rem 1rem}
  .tiles{display:grid;grid-template-columns:repeat(auto-fit,minmax(9rem,1fr));gap:.8rem}
  .count{font-size:1.6rem;font-weight:600}
  .settings{max-width:36rem} .settings label{display:block;font-weight:600;margin-top:.6rem}
  .settings input{width:100%;box-sizing:border-box} .settings p{margin:.2rem 0 .4rem;font-size:.85rem}
  .settings textarea{width:100%;box-sizing:border-box} .settings fieldset{border:1px solid #d0d7de;border-radius:6px;margin:.8rem 0;min-width:0}
  .error{color:#cf222e} nav.sections{margin:.4rem 0 1rem} .settings li{margin:.4rem 0} .settings li p{margin:0}
  pre{overflow-x:auto} .wrap{overflow-wrap:anywhere}
  @media (max-width:40rem){
    header{padding:.6rem 1rem} nav{flex-basis:100%;order:1} main{padding:0 1rem}
    .fields th{width:6.5rem} .fields td{overflow-wrap:anywhere}
    input,select,textarea{max-width:100%;box-sizing:border-box}
    header .muted,.notice code{overflow-wrap:anywhere} label{display:inline-block}
  }
`;

/** What an action said, as the frame shows it: what it changed, or why it was refused. */
export type Said = Pick<Notice, 'done' | 'notes' | 'refused'>;

/** The one place a page says what the last action did: first under the bar, before the page's own heading. */
function saidHtml(said: Said | undefined): SafeHtml | string {
  if (said?.refused) return html`<p role="alert" class="said refused">${said.refused}</p>`;
  if (!said?.done) return '';
  return html`<div role="status" class="said">${said.done}${said.notes?.length ? html`<ul>${said.notes.map((note) => html`<li>${note}</li>`)}</ul>` : ''}</div>`;
}

/** Every dashboard page: the head, the bar on top (if any), what the last action said (if anything) and the page's body. */
export function frame(title: string, body: SafeHtml, header: SafeHtml | string = '', said?: Said): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>${title} · Waitlist</title><style>${new SafeHtml(STYLE)}</style></head>
<body>${skipLink('Skip to content')}${header}<main id="main" tabindex="-1">${saidHtml(said)}${body}</main></body></html>`.value;
}

/** A time as the dashboard shows it: UTC to the minute (or second), '—' for none. */
export function when(value: Date | string | null, seconds = false): string {
  if (value === null) return '—';
  return inUtc(new Date(value), seconds);
}

/** A one-button form that posts to `action` with the session's CSRF token. */
export function postButton(
  identity: DashboardIdentity,
  action: string,
  label: string,
  kind: 'primary' | 'secondary' | 'danger' = 'secondary',
  fields: SafeHtml | string = '',
): SafeHtml {
  return html`<form class="inline" method="post" action="${action}"><input type="hidden" name="_csrf" value="${identity.csrfToken}">${fields}<button type="submit" class="${kind}">${label}</button></form> `;
}

/**
 * The first step of an action that destroys something: a link, looking like postButton's button, to the
 * page that says what will be lost (confirmationPage). Following it changes nothing.
 */
export function askFirst(href: string, label: string, kind: 'secondary' | 'danger' = 'danger'): SafeHtml {
  return html`<a class="button ${kind}" href="${href}">${label}</a> `;
}

export interface Confirmation {
  title: string;
  /** What will be lost, in sentences. */
  lost: SafeHtml;
  /** Where the button posts: the action's own route. */
  action: string;
  /** None when nothing would happen: the page only says why, and leads back. */
  button?: string;
  /** Where "Cancel" goes. */
  back: string;
  /** What the button posts beside the CSRF token. */
  fields?: SafeHtml;
}

/** The second step: what will be lost, the button that does it, and a way back. */
export function confirmationPage(at: ProductPage, section: string, ask: Confirmation): string {
  return frame(
    ask.title,
    html`<h1>${ask.title}</h1>
<div class="card confirm">${ask.lost}
<p>${ask.button ? html`${postButton(at.identity, ask.action, ask.button, 'danger', ask.fields)}<a href="${ask.back}">Cancel</a>` : html`<a href="${ask.back}">Back</a>`}</p></div>`,
    bar(at.identity, at, section),
  );
}

const SECTIONS = [
  ['overview', 'Overview'],
  ['entries', 'Entries'],
  ['line', 'Line'],
  ['referrals', 'Referrals'],
  ['releases', 'Releases'],
  ['webhooks', 'Webhooks'],
  ['keys', 'API keys'],
  ['sign-up-hooks', 'Sign-up hooks'],
  ['templates', 'Mail templates'],
  ['settings', 'Settings'],
] as const;

/** The bar on top of every page: the product, the live/test switch, sign out. */
export function bar(identity: DashboardIdentity, at?: ProductPage, section = 'overview'): SafeHtml {
  const { product, mode } = at ?? {};
  const modes = product
    ? html`<span class="mode">${(['live', 'test'] as const).map(
        (m) => html`<a class="${m === mode ? `on ${m}` : ''}" href="/dashboard/${product.id}/${m}/${section}">${m === 'live' ? 'Live' : 'Test'}</a>`,
      )}</span>`
    : '';
  const sections = product && mode
    ? html`<nav>${SECTIONS.map(([path, label]) => html`<a class="${path === section ? 'on' : ''}" href="/dashboard/${product.id}/${mode}/${path}">${label}</a>`)}</nav>`
    : '';
  return html`<header><a href="/dashboard">Waitlist</a>${product ? html`<span>${product.name}</span>` : ''}${modes}${sections}
<span class="grow"></span>${identity.devInbox ? html`<a href="/dev/mail" style="font-weight:400">Dev inbox</a>` : ''}${identity.user.operator ? html`<a href="/admin/queues" style="font-weight:400">Queues</a>` : ''}<span class="muted">${identity.user.email}</span>
<form class="inline" method="post" action="/dashboard/logout"><input type="hidden" name="_csrf" value="${identity.csrfToken}"><button class="link">Sign out</button></form></header>`;
}
