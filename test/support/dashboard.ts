import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, MODULE_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { DashboardAuthService } from '../../apps/api/src/dashboard/auth/dashboard-auth.service';
import { DashboardModule } from '../../apps/api/src/dashboard/dashboard.module';
import { ReleasesService } from '../../apps/api/src/releases/releases.service';
import { Product, Stack } from './stack';

export const PASSWORD = 'a long enough password';

export const csrfIn = (page: string): string => /name="_csrf" value="([^"]+)"/.exec(page)![1];

export const form = (fields: Record<string, string> | [string, string][]) => new URLSearchParams(fields).toString();

/** Posts the login form as a browser does: with the login page's token and cookie; from `remoteAddress` if given. */
export async function logIn(stack: Stack, email: string, password = PASSWORD, remoteAddress?: string) {
  const loginPage = await stack.request({ method: 'GET', url: '/dashboard/login', remoteAddress });
  const response = await stack.request({
    method: 'POST',
    url: '/dashboard/login',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: String(loginPage.headers['set-cookie']).split(';')[0] },
    payload: form({ email, password, _csrf: csrfIn(loginPage.text) }),
    remoteAddress,
  });
  const setCookie = ([] as string[]).concat(response.headers['set-cookie'] ?? []).find((cookie) => cookie.startsWith('wl_session=')) ?? '';
  return { response, cookie: setCookie.split(';')[0], setCookie };
}

/** The Set-Cookie headers of an answer, by cookie name. */
export function setCookies(response: { headers: Record<string, unknown> }): Record<string, string> {
  const headers = ([] as string[]).concat((response.headers['set-cookie'] as string | string[] | undefined) ?? []);
  return Object.fromEntries(headers.map((header) => [header.split('=')[0], header]));
}

/** A Set-Cookie header's name=value and its attributes, sorted (their order means nothing); Expires is left out (Max-Age wins). */
export function cookieParts(header: string): { pair: string; attributes: string[] } {
  const [pair, ...attributes] = header.split('; ');
  return { pair, attributes: attributes.filter((attribute) => !attribute.startsWith('Expires=')).sort() };
}

/** A signed-in session: its cookie and the CSRF token its forms carry. */
export async function signIn(stack: Stack, email: string): Promise<{ cookie: string; csrf: string }> {
  const { cookie } = await logIn(stack, email);
  return { cookie, csrf: csrfIn((await stack.request({ method: 'GET', url: '/dashboard', headers: { cookie } })).text) };
}

export interface DashboardRoute {
  method: 'GET' | 'POST';
  /** The route's path under /dashboard/, e.g. ':productId/:mode/keys' ('' for /dashboard itself). */
  path: string;
}

/** Every route of every controller of the dashboard, read from their metadata, so that a page added later is checked too. */
export function dashboardRoutes(): DashboardRoute[] {
  const controllers: (new (...args: never[]) => object)[] = Reflect.getMetadata(MODULE_METADATA.CONTROLLERS, DashboardModule);
  return controllers.flatMap((controller) => {
    const prefix: string = Reflect.getMetadata(PATH_METADATA, controller);
    return Object.getOwnPropertyNames(controller.prototype).filter((name) => name !== 'constructor').flatMap((name) => {
      const handler: unknown = Object.getOwnPropertyDescriptor(controller.prototype, name)?.value;
      const path: string | undefined = typeof handler === 'function' ? Reflect.getMetadata(PATH_METADATA, handler) : undefined;
      if (path === undefined) return [];
      const [root, ...rest] = `${prefix}/${path}`.split('/').filter(Boolean);
      if (root !== 'dashboard') throw new Error(`${controller.name}.${name} is not under /dashboard`);
      const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler as object) as RequestMethod];
      if (method !== 'GET' && method !== 'POST') throw new Error(`${controller.name}.${name} answers ${method}, which these tests do not know`);
      return [{ method, path: rest.join('/') }];
    });
  });
}

/** A paused release of the product's live mode, for the routes that name one. */
export const releaseOf = async (stack: Stack, productId: string): Promise<string> =>
  (await stack.api.get(ReleasesService).create({ productId, mode: 'live' }, { count: 1, pattern: '0 9 * * 1', timeZone: 'UTC', paused: true })).id;

/** Two products of two teams: Acme (a name with markup, to be escaped) of ada@example.com, and Other of bob@example.com. */
export async function twoTeams(): Promise<{ stack: Stack; acme: Product; other: Product }> {
  const stack = await Stack.start({ apps: ['api', 'mailer'], env: { RATE_LIMIT_SIGNUP: '1000/1m', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
  const acme = await stack.createProduct({ name: 'Acme <script>alert(1)</script>' });
  const other = await stack.createProduct({ name: 'Other' });
  await stack.api.get(DashboardAuthService).createUser('ada@example.com', PASSWORD, acme.id);
  await stack.api.get(DashboardAuthService).createUser('bob@example.com', PASSWORD, other.id);
  return { stack, acme, other };
}
