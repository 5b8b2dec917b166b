import { html } from '@app/shared';
import type { ApiKey } from '@app/shared';
import type { KeyPair } from '../../keys/keys.service';
import type { ProductPage } from '../product-page';
import { bar, frame, postButton, when } from './layout';

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
