import { html, LoginHook, LoginHookProvider } from '@app/shared';
import type { NewLoginHook } from '../../login-hooks/login-hooks.service';
import type { Notice } from '../auth/notice';
import type { ProductPage } from '../shared/product-page';
import { askFirst, bar, confirmationPage, frame, when } from '../shared/layout';

const LOGIN_SYSTEM: Record<LoginHookProvider, string> = { supabase: 'Supabase Auth', kratos: 'Ory Kratos' };

/** Where the new hook's URL and secret go, with them filled in: shown once, with the secret. */
function setUp(hook: NewLoginHook) {
  if (hook.provider === 'supabase') {
    return html`<p>In the Supabase dashboard: <em>Authentication → Hooks → Add hook → Before User Created</em>, type HTTPS, with this URL and secret.
Self-hosted Supabase Auth takes them as environment variables:</p>
<pre>GOTRUE_HOOK_BEFORE_USER_CREATED_ENABLED=true
GOTRUE_HOOK_BEFORE_USER_CREATED_URI=${hook.url}
GOTRUE_HOOK_BEFORE_USER_CREATED_SECRETS=${hook.secret}</pre>`;
  }
  return html`<p>In kratos.yml, under <code>selfservice.flows.registration.after.&lt;method&gt;.hooks</code> for each sign-up method you use
(password, oidc, code, passkey, webauthn), with the body template of docs/integrations/kratos.md:</p>
<pre>- hook: web_hook
  config:
    url: ${hook.url}
    method: POST
    body: file:///etc/config/kratos/waitlist-hook.jsonnet
    response:
      parse: true
    auth:
      type: api_key
      config:
        name: Authorization
        value: Bearer ${hook.secret}
        in: header</pre>`;
}

/** What a login system does once its hook's URL answers 404 (docs/integrations/supabase.md and kratos.md). */
const WITHOUT_HOOK: Record<LoginHookProvider, string> = {
  supabase: 'so every sign-up to your Supabase project fails',
  kratos: 'so every registration flow that runs it stops with an error',
};

/** The hooks, with a new one's URL and secret shown once; why an action was refused goes in the frame's notice. */
export function loginHooksPage(at: ProductPage, hooks: (LoginHook & { url: string })[], notice?: Notice): string {
  const { identity, mode } = at;
  const base = `${at.base}/sign-up-hooks`;
  const created = notice?.loginHook;
  return frame(
    'Sign-up hooks',
    html`<h1>Sign-up hooks (${mode})</h1>
<p class="muted">A login system calls its hook each time someone signs up to the product: the address gets in when it was invited (or has redeemed),
and an invite code that comes with the sign-up is redeemed when it is the code of that very address. The answer comes within a second.</p>
${created ? html`<div role="status" class="notice">
<p><strong>Copy the secret now: it is shown this once.</strong></p>
<p>URL: <code>${created.url}</code></p><p>Secret: <code data-secret>${created.secret}</code></p>
${setUp(created)}</div>` : ''}
<form method="post" action="${base}" class="card" style="margin-bottom:1rem"><input type="hidden" name="_csrf" value="${identity.csrfToken}">
  <p style="margin:0 0 .4rem"><label><input type="radio" name="provider" value="supabase" checked> ${LOGIN_SYSTEM.supabase} (Before User Created hook)</label>
  <label style="margin-left:1rem"><input type="radio" name="provider" value="kratos"> ${LOGIN_SYSTEM.kratos} (registration web hook)</label></p>
  <p style="margin:0 0 .6rem"><label><input type="checkbox" name="failOpen" value="on"> Fail open: let sign-ups through when the check cannot answer in time.</label>
  <span class="muted">Left unticked, such sign-ups are refused.</span></p>
  <button type="submit">Add a hook</button>
</form>
<div class="scroll"><table><tr><th>Hook URL</th><th>Login system</th><th>When the check cannot answer</th><th>Created</th><th></th></tr>
${hooks.length ? hooks.map(
  (hook) => html`<tr><td><code>${hook.url}</code></td><td>${LOGIN_SYSTEM[hook.provider]}</td><td>${hook.failOpen ? 'let through (fail open)' : 'refused (fail closed)'}</td><td>${when(hook.createdAt)}</td>
<td>${hook.revokedAt ? html`<span class="muted">revoked ${when(hook.revokedAt)}</span>` : askFirst(`${base}/${hook.id}/revoke`, 'Revoke')}</td></tr>`,
) : html`<tr><td colspan="5" class="muted">No hooks yet.</td></tr>`}
</table></div>`,
    bar(identity, at, 'sign-up-hooks'),
    notice,
  );
}

/**
 * What revoking a hook stops: LoginHooksService.check answers 404 for a revoked hook before anything
 * else, so failing open, which covers only a check that cannot answer in time, lets nobody through.
 */
export function revokeLoginHookPage(at: ProductPage, hook: LoginHook & { url: string }): string {
  const system = LOGIN_SYSTEM[hook.provider];
  return confirmationPage(at, 'sign-up-hooks', {
    title: 'Revoke this sign-up hook?',
    lost: html`<p>The ${system} hook ${hook.url} stops at once: its URL answers 404 to every call from then on, ${hook.failOpen ? 'although it fails open (that lets sign-ups through only when the check cannot answer in time)' : 'as if it had never been made'}.</p>
<p>${system} treats that as a failed hook, ${WITHOUT_HOOK[hook.provider]}, until it calls another hook or none. Make the new hook first, then revoke this one.</p>`,
    action: `${at.base}/sign-up-hooks/${hook.id}/revoke`,
    button: 'Revoke the hook',
    back: `${at.base}/sign-up-hooks`,
  });
}
