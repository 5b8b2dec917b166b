import { ApiKey, Entry, ENTRY_EVENT_TYPES, EntryRecord, Product, WebhookEndpoint } from '@app/shared';
import type { LoggedDelivery } from '../webhooks/webhooks.service';
import type { KeyPair } from '../keys/keys.service';
import { html, SafeHtml } from '../common/html';
import type { DashboardIdentity } from './dashboard-auth.service';
import type { Overview, Series } from './overview.service';
import type { ProductPage } from './product-page';
import type { ProductSettings } from '../products/products.service';

const STYLE = `
  body{font:15px/1.5 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:#1f2328;background:#f6f8fa;margin:0}
  header{display:flex;gap:1rem;align-items:center;padding:.6rem 1.5rem;background:#fff;border-bottom:1px solid #d0d7de}
  header .grow{flex:1} header a{color:#1f2328;text-decoration:none;font-weight:600}
  .mode a{padding:.15rem .6rem;border-radius:999px;font-weight:500} .mode a.on{background:#1f2328;color:#fff}
  .mode a.on.test{background:#bf8700}
  main{max-width:72rem;margin:1.5rem auto;padding:0 1.5rem}
  h1{font-size:1.3rem;margin:0 0 1rem}
  table{width:100%;border-collapse:collapse;background:#fff;border:1px solid #d0d7de;border-radius:8px}
  th,td{text-align:left;padding:.45rem .7rem;border-bottom:1px solid #eaeef2;font-size:.9rem}
  th{background:#f6f8fa;font-weight:600}
  form.inline{display:inline} input,select{padding:.4rem;border:1px solid #d0d7de;border-radius:6px;font:inherit}
  button{padding:.4rem .9rem;border:0;border-radius:6px;background:#1f6feb;color:#fff;font:inherit;cursor:pointer}
  button.link{background:none;color:#59636e;padding:0}
  button.secondary{background:#fff;color:#1f2328;border:1px solid #d0d7de} button.danger{background:#cf222e}
  nav{display:flex;gap:.9rem} nav a{font-weight:400} nav a.on{font-weight:700}
  a{color:#0969da} code[data-secret]{user-select:all;font-size:1rem}
  .pill.succeeded,.pill.redeemed{background:#dafbe1} .pill.failed{background:#ffebe9} .pill.pending{background:#fff8c5} .pill.invited{background:#ddf4ff}
  .muted{color:#59636e} .pill{padding:.05rem .5rem;border-radius:999px;background:#eaeef2;font-size:.8rem}
  .login{max-width:22rem;margin:12vh auto;background:#fff;border:1px solid #d0d7de;border-radius:12px;padding:2rem}
  .login input{width:100%;box-sizing:border-box;margin:.2rem 0 .8rem}
  h2{font-size:1.05rem;margin:1.5rem 0 .6rem}
  .notice{background:#fff8c5;border:1px solid #d4a72c;border-radius:8px;padding:.8rem;margin-bottom:1rem}
  .card{background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:.8rem 1rem}
  .tiles{display:grid;grid-template-columns:repeat(auto-fit,minmax(9rem,1fr));gap:.8rem}
  .count{font-size:1.6rem;font-weight:600}
  .settings{max-width:36rem} .settings label{display:block;font-weight:600;margin-top:.6rem}
  .settings input{width:100%;box-sizing:border-box} .settings p{margin:.2rem 0 .4rem;font-size:.85rem}
`;

function frame(title: string, body: SafeHtml, header: SafeHtml | string = ''): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>${title} · Waitlist</title><style>${new SafeHtml(STYLE)}</style></head>
<body>${header}<main>${body}</main></body></html>`.value;
}

/** A time as the dashboard shows it: UTC to the minute (or second), '—' for none. */
function when(value: Date | string | null, seconds = false): string {
  if (value === null) return '—';
  return `${new Date(value).toISOString().slice(0, seconds ? 19 : 16).replace('T', ' ')} UTC`;
}

/** A one-button form that posts to `action` with the session's CSRF token. */
function postButton(
  identity: DashboardIdentity,
  action: string,
  label: string,
  kind: 'primary' | 'secondary' | 'danger' = 'secondary',
  fields: SafeHtml | string = '',
): SafeHtml {
  return html`<form class="inline" method="post" action="${action}"><input type="hidden" name="_csrf" value="${identity.csrfToken}">${fields}<button type="submit" class="${kind}">${label}</button></form> `;
}

export function loginPage(csrfToken: string, error?: string, email = ''): string {
  return frame(
    'Sign in',
    html`<div class="login"><h1>Sign in to Waitlist</h1>
${error ? html`<p role="alert" style="color:#cf222e">${error}</p>` : ''}
<form method="post" action="/dashboard/login"><input type="hidden" name="_csrf" value="${csrfToken}">
  <label for="email">Email</label><input id="email" type="email" name="email" value="${email}" required autocomplete="username">
  <label for="password">Password</label><input id="password" type="password" name="password" required autocomplete="current-password">
  <button type="submit">Sign in</button>
</form></div>`,
  );
}

const SECTIONS = [
  ['overview', 'Overview'],
  ['entries', 'Entries'],
  ['line', 'Line'],
  ['webhooks', 'Webhooks'],
  ['keys', 'API keys'],
  ['settings', 'Settings'],
] as const;

/** The bar on top of every page: the product, the live/test switch, sign out. */
function bar(identity: DashboardIdentity, at?: ProductPage, section = 'overview'): SafeHtml {
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

export function productsPage(identity: DashboardIdentity, products: Product[]): string {
  return frame(
    'Products',
    html`<h1>Your products</h1>
<table><tr><th>Product</th><th>Id</th></tr>
${products.map((product) => html`<tr><td><a href="/dashboard/${product.id}/live/overview">${product.name}</a></td><td class="muted">${product.id}</td></tr>`)}
</table>`,
    bar(identity),
  );
}

export interface EntriesView {
  entries: Entry[];
  nextCursor: string | null;
  email?: string;
  state?: string;
}

export function entriesPage(at: ProductPage, view: EntriesView): string {
  const { identity, product } = at;
  const base = `${at.base}/entries`;
  const next = new URLSearchParams({ ...(view.email ? { email: view.email } : {}), ...(view.state ? { state: view.state } : {}), cursor: view.nextCursor ?? '' });
  return frame(
    `Entries of ${product.name}`,
    html`<h1>Entries</h1>
<form method="get" action="${base}" style="margin-bottom:1rem">
  <input type="search" name="email" placeholder="Find by email" value="${view.email ?? ''}">
  <select name="state"><option value="">Every state</option>${(['pending', 'confirmed', 'invited', 'redeemed'] as const).map(
    (state) => html`<option value="${state}"${new SafeHtml(view.state === state ? ' selected' : '')}>${state}</option>`,
  )}</select>
  <button type="submit">Filter</button>
  <a href="${base}.csv?${new URLSearchParams({ ...(view.email ? { email: view.email } : {}), ...(view.state ? { state: view.state } : {}) }).toString()}">Export CSV</a>
</form>
<table><tr><th>Email</th><th>State</th><th>Signed up</th><th>Confirmed</th><th>Invited</th><th>Referrals</th></tr>
${view.entries.length ? view.entries.map(
      (entry) => html`<tr><td><a href="${base}/${entry.id}">${entry.email}</a></td><td><span class="pill ${entry.state}">${entry.state}</span></td><td>${when(entry.createdAt)}</td>
<td>${when(entry.confirmedAt)}</td><td>${when(entry.invitedAt)}</td><td>${entry.referrals}</td></tr>`,
    ) : html`<tr><td colspan="6" class="muted">No entries.</td></tr>`}
</table>
${view.nextCursor ? html`<p><a href="${base}?${next.toString()}">Older entries →</a></p>` : ''}`,
    bar(identity, at, 'entries'),
  );
}

export interface EntryView {
  entry: Entry;
  place: number | null;
  movedUp: number;
  referred: Entry[];
  message?: string;
}

export function entryPage(at: ProductPage, view: EntryView): string {
  const { identity, base } = at;
  const { entry } = view;
  const action = (name: string) => `${base}/entries/${entry.id}/${name}`;
  const rows: [string, string | number | null][] = [
    ['Id', entry.id],
    ['State', entry.state],
    ['Signed up', when(entry.createdAt, true)],
    ['Confirmed', when(entry.confirmedAt, true)],
    ['Invited', when(entry.invitedAt, true)],
    ['Redeemed', when(entry.redeemedAt, true)],
    ['Referral code', entry.referralCode],
    ['Referrals', entry.referrals],
    ['Moved up by hand', view.movedUp],
  ];
  return frame(
    entry.email,
    html`<p><a href="${base}/entries">← Entries</a></p>
<h1>${entry.email}</h1>
${view.message ? html`<p role="status" class="pill" style="display:inline-block;padding:.4rem .8rem">${view.message}</p>` : ''}
${view.place !== null ? html`<p>Place in line: <strong>#${view.place}</strong></p>` : ''}
<table>${rows.map(([label, value]) => html`<tr><th style="width:12rem">${label}</th><td>${value ?? '—'}</td></tr>`)}</table>
<p style="margin-top:1rem">
${entry.state === 'confirmed' ? postButton(identity, action('invite'), 'Invite', 'primary') : ''}
${entry.state === 'invited' ? postButton(identity, action('reinvite'), 'Send the invitation again', 'primary') : ''}
${entry.state === 'confirmed' ? postButton(identity, action('move-up'), 'Move up', 'secondary', html`<input type="number" name="places" min="1" max="1000000" value="1" style="width:6rem" aria-label="Places"> `) : ''}
${postButton(identity, action('delete'), 'Delete', 'danger')}
</p>
<h2 style="font-size:1.05rem">Referrals</h2>
<table><tr><th>Email</th><th>State</th><th>Confirmed</th></tr>
${view.referred.length ? view.referred.map((friend) => html`<tr><td><a href="${base}/entries/${friend.id}">${friend.email}</a></td><td><span class="pill ${friend.state}">${friend.state}</span></td><td>${when(friend.confirmedAt)}</td></tr>`) : html`<tr><td colspan="3" class="muted">None yet.</td></tr>`}
</table>`,
    bar(identity, at, 'entries'),
  );
}

export function keysPage(at: ProductPage, keys: ApiKey[], created?: KeyPair): string {
  const { identity, mode } = at;
  const base = `${at.base}/keys`;
  return frame(
    'API keys',
    html`<h1>API keys (${mode})</h1>
${created ? html`<div role="status" class="notice">
<p><strong>Copy the secret key now: it is shown this once.</strong></p>
<p>Secret key: <code data-secret>${created.secret}</code></p><p>Publishable key: <code>${created.publishable}</code></p></div>` : ''}
<p>${postButton(identity, base, 'Create a key pair', 'primary')}</p>
<table><tr><th>Key</th><th>Kind</th><th>Created</th><th>Last used</th><th></th></tr>
${keys.map(
  (key) => html`<tr><td><code>${key.hint}</code></td><td>${key.kind}</td><td>${when(key.createdAt)}</td><td>${key.kind === 'secret' ? when(key.lastUsedAt) : ''}</td>
<td>${key.revokedAt ? html`<span class="muted">revoked ${when(key.revokedAt)}</span>` : postButton(identity, `${base}/${key.id}/revoke`, 'Revoke', 'danger')}</td></tr>`,
)}
</table>`,
    bar(identity, at, 'keys'),
  );
}

export function webhooksPage(at: ProductPage, endpoints: WebhookEndpoint[], notice?: { secret?: string; error?: string; sent?: boolean }): string {
  const { identity, mode } = at;
  const base = `${at.base}/webhooks`;
  const csrf = html`<input type="hidden" name="_csrf" value="${identity.csrfToken}">`;
  const post = (path: string, label: string, kind?: 'primary' | 'danger') => postButton(identity, `${base}/${path}`, label, kind);
  return frame(
    'Webhooks',
    html`<h1>Webhook endpoints (${mode})</h1>
${notice?.secret ? html`<div role="status" class="notice">
<p><strong>Copy the signing secret now: it is shown this once.</strong></p><p><code data-secret>${notice.secret}</code></p></div>` : ''}
${notice?.error ? html`<p role="alert" style="color:#cf222e">${notice.error}</p>` : ''}
${notice?.sent ? html`<p role="status">A webhook.test event is on its way; see the delivery log.</p>` : ''}
<form method="post" action="${base}" class="card" style="margin-bottom:1rem">${csrf}
  <p style="margin:0 0 .6rem"><input type="url" name="url" placeholder="https://example.com/webhooks" required style="width:28rem" aria-label="Endpoint URL"> <button type="submit">Add endpoint</button></p>
  ${ENTRY_EVENT_TYPES.map((type) => html`<label style="margin-right:.8rem"><input type="checkbox" name="events" value="${type}" checked> ${type}</label>`)}
</form>
<table><tr><th>URL</th><th>Events</th><th>Status</th><th></th></tr>
${endpoints.length ? endpoints.map(
  (endpoint) => html`<tr><td>${endpoint.url}<br><span class="muted">${endpoint.id}</span></td><td>${endpoint.events.join(', ')}</td>
<td><span class="pill ${endpoint.disabledAt ? 'failed' : 'succeeded'}">${endpoint.disabledAt ? 'disabled' : 'enabled'}</span></td>
<td><a href="${base}/${endpoint.id}">Delivery log</a> ${post(`${endpoint.id}/test`, 'Send test event')}${post(`${endpoint.id}/rotate`, 'Rotate secret')}
${post(`${endpoint.id}/${endpoint.disabledAt ? 'enable' : 'disable'}`, endpoint.disabledAt ? 'Enable' : 'Disable')}${post(`${endpoint.id}/delete`, 'Delete', 'danger')}</td></tr>`,
) : html`<tr><td colspan="4" class="muted">No endpoints yet.</td></tr>`}
</table>`,
    bar(identity, at, 'webhooks'),
  );
}

export function deliveryLogPage(at: ProductPage, endpoint: WebhookEndpoint, log: LoggedDelivery[], error?: string): string {
  const { identity } = at;
  const base = `${at.base}/webhooks/${endpoint.id}`;
  return frame(
    'Delivery log',
    html`<p><a href="${at.base}/webhooks">← Webhook endpoints</a></p>
<h1>Delivery log</h1><p class="muted">${endpoint.url} · the last 100 deliveries of 30 days</p>
${error ? html`<p role="alert" style="color:#cf222e">${error}</p>` : ''}
<table><tr><th>Event</th><th>Status</th><th>Attempts (time · answer · duration)</th><th></th></tr>
${log.length ? log.map(
  (delivery) => html`<tr><td>${delivery.eventType}<br><span class="muted">${delivery.eventId} · ${delivery.id}</span></td>
<td><span class="pill ${delivery.status}">${delivery.status}</span>${delivery.nextAttemptAt ? html`<br><span class="muted">next ${when(delivery.nextAttemptAt, true)}</span>` : ''}</td>
<td>${delivery.attempts.map((attempt) => html`<div>${when(attempt.attemptedAt, true)} · ${attempt.statusCode ?? attempt.error} · ${attempt.durationMs} ms</div>`)}</td>
<td>${delivery.status === 'pending' && delivery.nextAttemptAt ? postButton(identity, `${base}/deliveries/${delivery.id}/retry`, 'Retry now', 'primary') : ''}</td></tr>`,
) : html`<tr><td colspan="4" class="muted">No deliveries yet.</td></tr>`}
</table>`,
    bar(identity, at, 'webhooks'),
  );
}

/** The front of the line, `shown` at most, with the result of the last invite-next. */
export function linePage(at: ProductPage, line: EntryRecord[], shown: number, result?: { invited: number; failed: number }): string {
  const { identity, base } = at;
  return frame(
    'Line',
    html`<h1>The line</h1>
${result ? html`<p role="status">${result.invited} invited${result.failed ? html`; ${result.failed} could not be mailed and keep their place` : ''}.</p>` : ''}
<form method="post" action="${base}/line/invite-next" style="margin-bottom:1rem"><input type="hidden" name="_csrf" value="${identity.csrfToken}">
  Invite the next <input type="number" name="count" min="1" max="1000" value="10" style="width:6rem"> in line <button type="submit">Invite</button></form>
<table><tr><th>Place</th><th>Email</th><th>Confirmed</th><th>Referrals</th><th>Moved up</th></tr>
${line.length ? line.map(
  (entry, i) => html`<tr><td>#${i + 1}</td><td><a href="${base}/entries/${entry.id}">${entry.email}</a></td><td>${when(entry.confirmedAt)}</td><td>${entry.referrals}</td><td>${entry.movedUp}</td></tr>`,
) : html`<tr><td colspan="5" class="muted">Nobody is waiting.</td></tr>`}
</table>${line.length === shown ? html`<p class="muted">The first ${shown} in line.</p>` : ''}`,
    bar(identity, at, 'line'),
  );
}

/** An inline SVG bar chart of two series per day; each bar names its day and count on hover. */
function chart(overview: Overview, series: [Series, string, string][]): SafeHtml {
  const width = 720;
  const height = 150;
  const slot = width / overview.days.length;
  const bar = (slot - 4) / series.length;
  const top = Math.max(1, ...overview.days.flatMap((day) => series.map(([name]) => day.counts[name])));
  const bars = overview.days.flatMap((day, i) =>
    series.map(([name, label, color], j) => {
      const h = Math.round((day.counts[name] / top) * (height - 20));
      return html`<rect x="${(i * slot + 2 + j * bar).toFixed(1)}" y="${height - h}" width="${bar.toFixed(1)}" height="${h}" fill="${color}"><title>${day.day}: ${day.counts[name]} ${label}</title></rect>`;
    }),
  );
  const legend = series.map(([name, label, color]) => {
    const total = overview.days.reduce((sum, day) => sum + day.counts[name], 0);
    return html`<span style="margin-right:1rem"><span style="display:inline-block;width:.7rem;height:.7rem;background:${color};border-radius:2px"></span> ${label}: <strong>${total}</strong></span>`;
  });
  return html`<div class="card"><p style="margin:0 0 .4rem">${legend}</p>
<svg viewBox="0 0 ${width} ${height + 16}" width="100%" role="img" aria-label="${series.map(([, label]) => label).join(' and ')} per day">
<text x="0" y="10" font-size="10" fill="#59636e">${top}</text><line x1="0" x2="${width}" y1="${height + 0.5}" y2="${height + 0.5}" stroke="#d0d7de"/>
${bars}
<text x="0" y="${height + 14}" font-size="10" fill="#59636e">${overview.days[0].day}</text>
<text x="${width}" y="${height + 14}" font-size="10" fill="#59636e" text-anchor="end">${overview.days[overview.days.length - 1].day}</text></svg></div>`;
}

export function overviewPage(at: ProductPage, overview: Overview): string {
  const { identity, product, mode } = at;
  const { states } = overview;
  const total = states.pending + states.confirmed + states.invited + states.redeemed;
  const tiles: [string, number][] = [
    ['Entries', total],
    ['Waiting for confirmation', states.pending],
    ['In line', states.confirmed],
    ['Invited', states.invited],
    ['Redeemed', states.redeemed],
  ];
  return frame(
    `Overview of ${product.name}`,
    html`<h1>Overview (${mode})</h1>
<div class="tiles">${tiles.map(([label, count]) => html`<div class="card"><div class="muted">${label}</div><div class="count">${count.toLocaleString('en-US')}</div></div>`)}</div>
<h2>Sign-ups and confirmations, last ${overview.days.length} days (UTC)</h2>
${chart(overview, [['signups', 'sign-ups', '#8c959f'], ['confirmations', 'confirmations', '#1f6feb']])}
<h2>Invitations and redemptions, last ${overview.days.length} days (UTC)</h2>
${chart(overview, [['invitations', 'invitations', '#bf8700'], ['redemptions', 'redemptions', '#1a7f37']])}`,
    bar(identity, at, 'overview'),
  );
}

type SettingsValues = { [K in keyof ProductSettings]: string | number | null };

/** The settings form, filled with the product's settings or with what was typed and refused. */
export function settingsPage(at: ProductPage, values: SettingsValues, notice?: { saved?: boolean; error?: string }): string {
  const { identity, product } = at;
  const field = (name: keyof ProductSettings, label: string, type: string, hint: string, extra = '') =>
    html`<label for="${name}">${label}</label><input id="${name}" name="${name}" type="${type}" value="${values[name] ?? ''}"${new SafeHtml(extra)}>
<p class="muted">${hint}</p>`;
  return frame(
    'Settings',
    html`<h1>Settings of ${product.name}</h1>
${notice?.saved ? html`<p role="status">Saved.</p>` : ''}
${notice?.error ? html`<p role="alert" style="color:#cf222e">${notice.error}</p>` : ''}
<form method="post" action="${at.base}/settings" class="card settings"><input type="hidden" name="_csrf" value="${identity.csrfToken}">
${field('name', 'Name', 'text', 'Shown on the hosted pages and in mails.', ' required maxlength="100"')}
${field('senderName', 'Mail sender name', 'text', 'The name mails come from; the product name when empty.', ' maxlength="100"')}
${field('inviteUrl', 'Invite URL', 'url', 'Invitation mails link here with ?invite=<code>; the service’s own address when empty.')}
${field('signupUrl', 'Sign-up page URL', 'url', 'Referral links point here with ?ref=<code>; the hosted sign-up page when empty.')}
${field('referralPlaces', 'Referral places', 'number', 'Places an entry moves up for each friend who confirms. A change moves everyone waiting to their new place (live and test).', ' required min="0" max="9999"')}
<button type="submit">Save</button></form>`,
    bar(identity, at, 'settings'),
  );
}
