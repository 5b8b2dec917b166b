import { html } from '@app/shared';
import type { ApiKey } from '@app/shared';
import type { Notice } from '../auth/notice';
import type { ProductPage } from '../shared/product-page';
import { formSnippet } from '../shared/form-snippet';
import { askFirst, bar, confirmationPage, frame, postButton, when } from '../shared/layout';

export function keysPage(at: ProductPage, keys: ApiKey[], publicBase: string, notice?: Notice): string {
  const { identity, mode } = at;
  const created = notice?.keyPair;
  const base = `${at.base}/keys`;
  return frame(
    'API keys',
    html`<h1>API keys (${mode})</h1>
${created ? html`<div role="status" class="notice">
<p><strong>Copy the secret key now: it is shown this once.</strong></p>
<p>Secret key: <code data-secret>${created.secret}</code></p><p>Publishable key: <code>${created.publishable}</code></p></div>` : ''}
<p>${postButton(identity, base, 'Create a key pair', 'primary')}</p>
<div class="scroll"><table><tr><th>Key</th><th>Kind</th><th>Created</th><th>Last used</th><th></th></tr>
${keys.map(
  (key) => html`<tr><td><code>${key.hint}</code></td><td>${key.kind}</td><td>${when(key.createdAt)}</td><td>${key.kind === 'secret' ? when(key.lastUsedAt) : ''}</td>
<td>${key.revokedAt ? html`<span class="muted">revoked ${when(key.revokedAt)}</span>` : askFirst(`${base}/${key.id}/revoke`, 'Revoke')}</td></tr>`,
)}
</table></div>
${formSnippet(publicBase, keys.find((key) => key.kind === 'publishable' && !key.revokedAt)?.hint)}`,
    bar(identity, at, 'keys'),
    notice,
  );
}

/** What revoking a key stops (KeysService.revokeById: this one key, honoured at once by every process through KeyCache). */
export function revokeKeyPage(at: ProductPage, key: ApiKey, pairedWith: ApiKey | null): string {
  const stops =
    key.kind === 'secret'
      ? `The secret key ${key.hint} stops working at once: every API request made with it answers 401 from then on.`
      : `The publishable key ${key.hint} stops working at once: sign-ups with it answer 401, its hosted sign-up page /w/${key.hint} answers 404, and so do the referral links that lead to that page.`;
  const other = key.kind === 'secret' ? 'publishable' : 'secret';
  const pair = !pairedWith
    ? 'Only this key is revoked.'
    : `Only this key is revoked: the ${other} key of its pair, ${pairedWith.hint}, ${pairedWith.revokedAt ? 'was revoked already' : 'keeps working'}.`;
  return confirmationPage(at, 'keys', {
    title: `Revoke the ${key.kind} key?`,
    lost: html`<p>${stops}</p><p>${pair} A revoked key cannot be brought back; a new key pair makes new keys.</p>`,
    action: `${at.base}/keys/${key.id}/revoke`,
    button: 'Revoke the key',
    back: `${at.base}/keys`,
  });
}
