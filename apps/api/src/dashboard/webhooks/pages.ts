import { ENTRY_EVENT_TYPES, html, SignatureFormat, WebhookEndpoint } from '@app/shared';
import type { LoggedDelivery } from '../../webhooks/delivery-log';
import { ROTATION_OVERLAP_MS } from '../../webhooks/webhooks.service';
import type { Notice } from '../auth/notice';
import type { ProductPage } from '../shared/product-page';
import { askFirst, bar, confirmationPage, frame, postButton, Said, when } from '../shared/layout';

/** How an endpoint's deliveries are signed, by the name receivers know the scheme by. */
const SIGNED_WITH: Record<SignatureFormat, string> = { service: 'Service-Signature', standard: 'Standard Webhooks' };

export function webhooksPage(at: ProductPage, endpoints: WebhookEndpoint[], notice?: Notice): string {
  const { identity, mode } = at;
  const base = `${at.base}/webhooks`;
  const csrf = html`<input type="hidden" name="_csrf" value="${identity.csrfToken}">`;
  const post = (path: string, label: string) => postButton(identity, `${base}/${path}`, label);
  return frame(
    'Webhooks',
    html`<h1>Webhook endpoints (${mode})</h1>
${notice?.secret ? html`<div role="status" class="notice">
<p><strong>Copy the signing secret now: it is shown this once.</strong></p><p><code data-secret>${notice.secret}</code></p></div>` : ''}
<form method="post" action="${base}" class="card" style="margin-bottom:1rem">${csrf}
  <p style="margin:0 0 .6rem"><input type="url" name="url" placeholder="https://example.com/webhooks" required style="width:28rem" aria-label="Endpoint URL"> <button type="submit">Add endpoint</button></p>
  ${ENTRY_EVENT_TYPES.map((type) => html`<label style="margin-right:.8rem"><input type="checkbox" name="events" value="${type}" checked> ${type}</label>`)}
  <fieldset style="border:0;margin:.6rem 0 0;padding:0"><legend style="font-weight:600">Signature</legend>
  <label style="display:block"><input type="radio" name="signatureFormat" value="service" checked> ${SIGNED_WITH.service}: our header, which Stripe's webhook verifier also accepts</label>
  <label style="display:block"><input type="radio" name="signatureFormat" value="standard"> ${SIGNED_WITH.standard}: the webhook-id, webhook-timestamp and webhook-signature headers, for the standardwebhooks libraries</label>
  <span class="muted" style="font-size:.85rem">Fixed for the endpoint: to switch, add a new endpoint.</span></fieldset>
</form>
<div class="scroll"><table><tr><th>URL</th><th>Events</th><th>Signature</th><th>Status</th><th></th></tr>
${endpoints.length ? endpoints.map(
  (endpoint) => html`<tr><td>${endpoint.url}<br><span class="muted">${endpoint.id}</span></td><td>${endpoint.events.join(', ')}</td><td>${SIGNED_WITH[endpoint.signatureFormat]}</td>
<td><span class="pill ${endpoint.disabledAt ? 'failed' : 'succeeded'}">${endpoint.disabledAt ? 'disabled' : 'enabled'}</span></td>
<td><a href="${base}/${endpoint.id}">Delivery log</a> ${post(`${endpoint.id}/test`, 'Send test event')}${askFirst(`${base}/${endpoint.id}/rotate`, 'Rotate secret', 'secondary')}
${post(`${endpoint.id}/${endpoint.disabledAt ? 'enable' : 'disable'}`, endpoint.disabledAt ? 'Enable' : 'Disable')}${askFirst(`${base}/${endpoint.id}/delete`, 'Delete')}</td></tr>`,
) : html`<tr><td colspan="5" class="muted">No endpoints yet.</td></tr>`}
</table></div>`,
    bar(identity, at, 'webhooks'),
    notice,
  );
}

export function deliveryLogPage(at: ProductPage, endpoint: WebhookEndpoint, log: LoggedDelivery[], said?: Said): string {
  const { identity } = at;
  const base = `${at.base}/webhooks/${endpoint.id}`;
  return frame(
    'Delivery log',
    html`<p><a href="${at.base}/webhooks">← Webhook endpoints</a></p>
<h1>Delivery log</h1><p class="muted">${endpoint.url} · signed with ${SIGNED_WITH[endpoint.signatureFormat]} · the last 100 deliveries of 30 days</p>
<div class="scroll"><table><tr><th>Event</th><th>Status</th><th>Attempts (time · answer · duration)</th><th></th></tr>
${log.length ? log.map(
  (delivery) => html`<tr><td>${delivery.eventType}<br><span class="muted">${delivery.eventId} · ${delivery.id}</span></td>
<td><span class="pill ${delivery.status}">${delivery.status}</span>${delivery.nextAttemptAt ? html`<br><span class="muted">next ${when(delivery.nextAttemptAt, true)}</span>` : ''}</td>
<td>${delivery.attempts.map((attempt) => html`<div>${when(attempt.attemptedAt, true)} · ${attempt.statusCode ?? attempt.error} · ${attempt.durationMs} ms</div>`)}</td>
<td>${delivery.status === 'pending' && delivery.nextAttemptAt ? postButton(identity, `${base}/deliveries/${delivery.id}/retry`, 'Retry now', 'primary') : ''}</td></tr>`,
) : html`<tr><td colspan="4" class="muted">No deliveries yet.</td></tr>`}
</table></div>`,
    bar(identity, at, 'webhooks'),
    said,
  );
}

/** What deleting the endpoint takes with it: its deliveries and their attempts go with its row (ON DELETE CASCADE). */
export function deleteEndpointPage(at: ProductPage, endpoint: WebhookEndpoint): string {
  return confirmationPage(at, 'webhooks', {
    title: 'Delete this endpoint?',
    lost: html`<p>The endpoint ${endpoint.url} will be deleted for good: it gets no more events, the deliveries waiting for a retry are dropped,
and its delivery log (every delivery and attempt) is deleted with it.</p>
<p>Its signing secret goes too: to receive events there again, add the URL as a new endpoint, which gets a new secret. To stop deliveries for a while and keep the log, disable it instead.</p>`,
    action: `${at.base}/webhooks/${endpoint.id}/delete`,
    button: 'Delete the endpoint',
    back: `${at.base}/webhooks`,
  });
}

/** What rotating the secret changes (WebhooksService.rotateSecret: the current secret signs beside the new one for ROTATION_OVERLAP_MS). */
export function rotateSecretPage(at: ProductPage, endpoint: WebhookEndpoint, now: Date): string {
  const hours = ROTATION_OVERLAP_MS / 3_600_000;
  const overlapping = endpoint.previousSecret && endpoint.previousSecretUntil && endpoint.previousSecretUntil > now ? endpoint.previousSecretUntil : null;
  return confirmationPage(at, 'webhooks', {
    title: 'Rotate the signing secret?',
    lost: html`<p>A new signing secret for ${endpoint.url} replaces the current one; it is shown once, on the next page.
For ${hours} hours after that, every delivery carries two signatures, with the new secret and with the current one, so a receiver that still
checks with the current secret keeps working while you put the new one in place; then only the new secret signs.</p>
${overlapping ? html`<p>The secret before the current one, which still signs until ${when(overlapping)}, stops signing at once.</p>` : ''}`,
    action: `${at.base}/webhooks/${endpoint.id}/rotate`,
    button: 'Rotate the secret',
    back: `${at.base}/webhooks`,
  });
}
