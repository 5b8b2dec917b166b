import { html } from '@app/shared';
import { frame } from '../shared/layout';

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
