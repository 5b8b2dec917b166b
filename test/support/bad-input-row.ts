/** A row of test/bad-input.e2e-spec.ts's table: one bad request and the answer it must get. */

/** Filled in once the data exists; rows name them as {{name}} in URLs, headers and bodies. */
export interface Values {
  /** A confirmed entry of the product. */
  id: string;
  /** A pending entry of the product. */
  pendingId: string;
  /** A confirmed entry of another product. */
  otherId: string;
  /** The pending entry's confirmation and unsubscribe tokens. */
  confirm: string;
  unsubscribe: string;
  /** A real nextCursor of GET /api/v1/entries?limit=1&state=confirmed with the test secret key. */
  cursor: string;
  /** The same cursor with one character of its signature changed. */
  tamperedCursor: string;
  sk: string;
  pk: string;
  liveSk: string;
  /** The test secret key of the other product, revoked. */
  revokedSk: string;
  /** The dashboard: the product, a webhook endpoint and a secret key of it. */
  productId: string;
  endpointId: string;
  keyId: string;
  /** A signed-in team member's session cookie and the CSRF token of its forms. */
  session: string;
  csrf: string;
  /** The login page's cookie and the token of its form. */
  loginCookie: string;
  loginCsrf: string;
}

/**
 * secret: the product's test secret key (the default for /api/ paths); none: the default elsewhere;
 * dashboard: the signed-in session's cookie; login: the login page's cookie.
 */
export type Auth = 'secret' | 'live' | 'publishable' | 'revoked' | 'none' | 'dashboard' | 'login' | `raw:${string}`;
export type Method = 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH';

export interface Row {
  name: string;
  method: Method;
  url: string;
  auth?: Auth;
  contentType?: string;
  headers?: Record<string, string>;
  body?: string | Buffer | ((values: Values) => string | Buffer);
  status: number;
  /** The error code of a JSON answer ({"error":{"code","message"}}). */
  code?: string;
  /** A hosted page: the answer is an HTML page with the status. */
  page?: true;
  /** A dashboard action that shows its refusal on the page it redirects to (status 303). */
  location?: string;
}

export const JSON_TYPE = 'application/json';
export const FORM = 'application/x-www-form-urlencoded';
export const MULTIPART = 'multipart/form-data; boundary=x';
export const MULTIPART_BODY = '--x\r\nContent-Disposition: form-data; name="email"\r\n\r\na@example.com\r\n--x--\r\n';
export const json = (value: unknown) => JSON.stringify(value);
/** Over the 64 KiB body limit. */
export const big = 'x'.repeat(70 * 1024);
export const invalidUtf8 = Buffer.from([0xc3, 0x28, 0xff, 0xfe]);
/** {"email":"<invalid UTF-8>@example.com"} as raw bytes. */
export const emailOfInvalidUtf8 = (prefix = '{') =>
  Buffer.concat([Buffer.from(`${prefix}"email":"`), invalidUtf8, Buffer.from('@example.com"}')]);
export const UNKNOWN_SK = `sk_test_${'A'.repeat(43)}`;
/** The dashboard pages of the product's test mode. */
export const D = '/dashboard/{{productId}}/test';
export const ENTRY = `${D}/entries/{{id}}`;
/** The settings' line section's form, valid but for the fields given. */
export const settings = (fields: Record<string, string>) => `_csrf={{csrf}}&${new URLSearchParams({ name: 'Acme', inviteUrl: '', signupUrl: '', referralPlaces: '1', ...fields })}`;
export const dashboard = { auth: 'dashboard', contentType: FORM } as const;
export const movedBack = { ...dashboard, method: 'POST', url: `${ENTRY}/move-up`, status: 303, location: ENTRY } as const;
export const inviteNext = { ...dashboard, method: 'POST', url: `${D}/line/invite-next`, status: 400, page: true } as const;
export const saveSettings = { ...dashboard, method: 'POST', url: `${D}/settings/line`, status: 400, page: true } as const;
export const addEndpoint = { ...dashboard, method: 'POST', url: `${D}/webhooks`, status: 400, page: true } as const;
export const logIn = { auth: 'login', contentType: FORM, method: 'POST', url: '/dashboard/login', page: true } as const;
