import { html, SafeHtml, SIGNUP_REFUSALS } from '@app/shared';
import type { Mode, Product, SignupRefusal } from '@app/shared';
import type { DashboardIdentity } from '../auth/dashboard-auth.service';
import { MAIL_RATE_DAYS, Overview, Series } from './overview.service';
import type { ProductPage } from '../shared/product-page';
import type { PrivacyRequest } from '../../personal-data/privacy-trail';
import { FirstStepKeys, firstSteps } from './first-steps';
import { bar, frame } from '../shared/layout';
import { trailSection } from './privacy-trail';
import { REASONS } from '../shared/messages';

/** Why a sign-up was refused, in the team's words. */
const REFUSALS: Record<SignupRefusal, string> = {
  challenge: 'refused: no right solution of the sign-up challenge',
  honeypot: 'filled in the honeypot',
  fill_time: 'sent sooner than the minimum fill time, or with a forged form token',
};

/** Counts by reason in a small table, "more than" a count that stopped there; `none` when every count is 0. */
function byReason(rows: [string, number, boolean?][], none: string): SafeHtml {
  if (rows.every(([, count]) => count === 0)) return html`<p class="muted">${none}</p>`;
  return html`<div class="scroll"><table><tr><th>Reason</th><th>Count</th></tr>
${rows.map(([words, count, more]) => html`<tr><td>${words}</td><td>${more ? 'more than ' : ''}${count.toLocaleString('en-US')}</td></tr>`)}
</table></div>`;
}

/** Each product links to its overview in the mode OverviewService.landingModes chose. */
export function productsPage(identity: DashboardIdentity, products: Product[], modes: Map<string, Mode>): string {
  return frame(
    'Products',
    html`<h1>Your products</h1>
<div class="scroll"><table><tr><th>Product</th><th>Id</th></tr>
${products.map((product) => html`<tr><td><a href="/dashboard/${product.id}/${modes.get(product.id) ?? 'live'}/overview">${product.name}</a></td><td class="muted">${product.id}</td></tr>`)}
</table></div>`,
    bar(identity),
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

/** True while nothing ever happened in the product's mode: its overview shows the next steps instead of empty charts. */
export function isEmpty(overview: Overview): boolean {
  const { pending, confirmed, invited, redeemed } = overview.states;
  return pending + confirmed + invited + redeemed === 0 && overview.days.every((day) => Object.values(day.counts).every((count) => count === 0));
}

/** `steps` (the keys for the next steps) when the product's mode is empty (isEmpty), else null. */
export function overviewPage(at: ProductPage, overview: Overview, trail: PrivacyRequest[], steps: FirstStepKeys | null): string {
  const { identity, product, mode } = at;
  const { states } = overview;
  const total = states.pending + states.confirmed + states.invited + states.redeemed;
  const tiles: [string, number][] = [
    ['Entries', total],
    ['Waiting for confirmation', states.pending],
    ['In line', states.confirmed],
    ['Invited', states.invited],
    ['Redeemed', states.redeemed],
    ['Milestones reached', overview.milestones],
  ];
  return frame(
    `Overview of ${product.name}`,
    html`<h1>Overview (${mode})</h1>
<div class="tiles">${tiles.map(([label, count]) => html`<div class="card"><div class="muted">${label}</div><div class="count">${count.toLocaleString('en-US')}</div></div>`)}</div>
${steps ? firstSteps(at, steps) : charts(overview)}
<h2>Refused sign-ups, last ${overview.days.length} days (UTC)</h2>
${byReason(SIGNUP_REFUSALS.map((reason) => [REFUSALS[reason], overview.refused[reason]]), 'None: the challenge and the bot signals of Settings refused no sign-up.')}
<h2>Referrals held for review</h2>
${byReason(overview.held.map(({ reason, count, more }) => [REASONS[reason], count, more]), 'None waiting.')}
<p class="muted">A referral held for several reasons counts under each; grant or revoke them under <a href="${at.base}/referrals">Referrals</a>.</p>
${mailRates(at, overview.mail)}
${trailSection(at, trail)}`,
    bar(identity, at, 'overview'),
  );
}

function charts(overview: Overview): SafeHtml {
  return html`<h2>Sign-ups and confirmations, last ${overview.days.length} days (UTC)</h2>
${chart(overview, [['signups', 'sign-ups', '#8c959f'], ['confirmations', 'confirmations', '#1f6feb']])}
<h2>Invitations and redemptions, last ${overview.days.length} days (UTC)</h2>
${chart(overview, [['invitations', 'invitations', '#bf8700'], ['redemptions', 'redemptions', '#1a7f37']])}`;
}

/** A rate as the providers state their limits: a percentage of the mails sent, '—' before any was. */
function percent(count: number, sent: number): string {
  return sent === 0 ? '—' : `${((100 * count) / sent).toLocaleString('en-US', { maximumFractionDigits: 2 })} %`;
}

/** Bounce and complaint rates, which mail providers suspend a sender for past about 5 % and 0.1 % (docs/operations.md). */
function mailRates(at: ProductPage, mail: Overview['mail']): SafeHtml {
  const tiles: [string, string, string][] = [
    ['Mails sent', mail.sent.toLocaleString('en-US'), ''],
    ['Bounce rate (hard)', percent(mail.hardBounces, mail.sent), `${mail.hardBounces} hard bounces`],
    ['Complaint rate', percent(mail.complaints, mail.sent), `${mail.complaints} complaints`],
  ];
  return html`<h2>Mail, last ${MAIL_RATE_DAYS} days (UTC)</h2>
<div class="tiles">${tiles.map(([label, value, note]) => html`<div class="card"><div class="muted">${label}</div><div class="count">${value}</div><div class="muted">${note}</div></div>`)}</div>
<p><a href="${at.base}/undeliverable">Undeliverable addresses: ${mail.undeliverable.toLocaleString('en-US')}</a></p>`;
}
