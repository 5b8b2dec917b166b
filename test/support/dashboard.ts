import { Stack } from './stack';

export const PASSWORD = 'a long enough password';

export const csrfIn = (page: string): string => /name="_csrf" value="([^"]+)"/.exec(page)![1];

export const form = (fields: Record<string, string> | [string, string][]) => new URLSearchParams(fields).toString();

/** Posts the login form as a browser does: with the login page's token and cookie. */
export async function logIn(stack: Stack, email: string, password = PASSWORD) {
  const loginPage = await stack.request({ method: 'GET', url: '/dashboard/login' });
  const response = await stack.request({
    method: 'POST',
    url: '/dashboard/login',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: String(loginPage.headers['set-cookie']).split(';')[0] },
    payload: form({ email, password, _csrf: csrfIn(loginPage.text) }),
  });
  const setCookie = ([] as string[]).concat(response.headers['set-cookie'] ?? []).find((cookie) => cookie.startsWith('wl_session=')) ?? '';
  return { response, cookie: setCookie.split(';')[0], setCookie };
}

/** A signed-in session: its cookie and the CSRF token its forms carry. */
export async function signIn(stack: Stack, email: string): Promise<{ cookie: string; csrf: string }> {
  const { cookie } = await logIn(stack, email);
  return { cookie, csrf: csrfIn((await stack.request({ method: 'GET', url: '/dashboard', headers: { cookie } })).text) };
}
