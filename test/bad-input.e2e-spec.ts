import { EntryRecord, QueueName } from '@app/shared';
import { KeysService } from '../apps/api/src/keys/keys.service';
import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { WebhooksService } from '../apps/api/src/webhooks/webhooks.service';
import { csrfIn, PASSWORD, signIn } from './support/dashboard';
import { confirmPath, joinLine, signUp } from './support/flows';
import { linkIn } from './support/smtp-sink';
import { Product, Stack } from './support/stack';
import { waitFor } from './support/wait';

/**
 * Bad input, one row per request: each must get its clear 4xx (never a 5xx), JSON endpoints the error
 * body of DESIGN.md §3 with the spec's code, hosted pages an HTML page, and nothing may change.
 */

/** Filled in once the data exists; rows name them as {{name}} in URLs, headers and bodies. */
interface Values {
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
type Auth = 'secret' | 'live' | 'publishable' | 'revoked' | 'none' | 'dashboard' | 'login' | `raw:${string}`;
type Method = 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH';

interface Row {
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

const JSON_TYPE = 'application/json';
const FORM = 'application/x-www-form-urlencoded';
const MULTIPART = 'multipart/form-data; boundary=x';
const MULTIPART_BODY = '--x\r\nContent-Disposition: form-data; name="email"\r\n\r\na@example.com\r\n--x--\r\n';
const json = (value: unknown) => JSON.stringify(value);
/** Over the 64 KiB body limit. */
const big = 'x'.repeat(70 * 1024);
const invalidUtf8 = Buffer.from([0xc3, 0x28, 0xff, 0xfe]);
/** {"email":"<invalid UTF-8>@example.com"} as raw bytes. */
const emailOfInvalidUtf8 = (prefix = '{') =>
  Buffer.concat([Buffer.from(`${prefix}"email":"`), invalidUtf8, Buffer.from('@example.com"}')]);
const UNKNOWN_SK = `sk_test_${'A'.repeat(43)}`;
/** The dashboard pages of the product's test mode. */
const D = '/dashboard/{{productId}}/test';
const ENTRY = `${D}/entries/{{id}}`;
/** The settings' line section's form, valid but for the fields given. */
const settings = (fields: Record<string, string>) => `_csrf={{csrf}}&${new URLSearchParams({ name: 'Acme', inviteUrl: '', signupUrl: '', referralPlaces: '1', ...fields })}`;
const dashboard = { auth: 'dashboard', contentType: FORM } as const;
const movedBack = { ...dashboard, method: 'POST', url: `${ENTRY}/move-up`, status: 303, location: ENTRY } as const;
const inviteNext = { ...dashboard, method: 'POST', url: `${D}/line/invite-next`, status: 400, page: true } as const;
const saveSettings = { ...dashboard, method: 'POST', url: `${D}/settings/line`, status: 400, page: true } as const;
const addEndpoint = { ...dashboard, method: 'POST', url: `${D}/webhooks`, status: 400, page: true } as const;
const logIn = { auth: 'login', contentType: FORM, method: 'POST', url: '/dashboard/login', page: true } as const;

const ROWS: Row[] = [
  // ── Authentication comes first ────────────────────────────────────────────────────────────────
  { name: 'no Authorization header', method: 'GET', url: '/api/v1/entries', auth: 'none', status: 401, code: 'unauthorized' },
  { name: 'Basic instead of Bearer', method: 'GET', url: '/api/v1/entries', auth: 'raw:Basic dXNlcjpwYXNz', status: 401, code: 'unauthorized' },
  { name: 'Bearer with no key', method: 'GET', url: '/api/v1/entries', auth: 'raw:Bearer', status: 401, code: 'unauthorized' },
  { name: 'the secret key without Bearer', method: 'GET', url: '/api/v1/entries', auth: 'raw:{{sk}}', status: 401, code: 'unauthorized' },
  { name: 'Bearer, the key and a second word', method: 'GET', url: '/api/v1/entries', auth: 'raw:Bearer {{sk}} extra', status: 401, code: 'unauthorized' },
  { name: 'a publishable key as bearer', method: 'GET', url: '/api/v1/entries', auth: 'publishable', status: 401, code: 'unauthorized' },
  { name: 'an unknown secret key', method: 'GET', url: '/api/v1/entries', auth: `raw:Bearer ${UNKNOWN_SK}`, status: 401, code: 'unauthorized' },
  { name: 'a revoked secret key', method: 'GET', url: '/api/v1/entries', auth: 'revoked', status: 401, code: 'unauthorized' },
  { name: 'a 10 KB bearer token', method: 'GET', url: '/api/v1/entries', auth: `raw:Bearer sk_${'a'.repeat(10_000)}`, status: 401, code: 'unauthorized' },
  { name: 'read an entry without a key', method: 'GET', url: '/api/v1/entries/{{id}}', auth: 'none', status: 401, code: 'unauthorized' },
  { name: 'delete an entry without a key', method: 'DELETE', url: '/api/v1/entries/{{id}}', auth: 'none', status: 401, code: 'unauthorized' },
  { name: 'delete an entry with the publishable key', method: 'DELETE', url: '/api/v1/entries/{{id}}', auth: 'publishable', status: 401, code: 'unauthorized' },
  { name: 'delete an entry with a revoked key', method: 'DELETE', url: '/api/v1/entries/{{id}}', auth: 'revoked', status: 401, code: 'unauthorized' },
  { name: 'GET invited without a key', method: 'GET', url: '/api/v1/invited?email=a%40example.com', auth: 'none', status: 401, code: 'unauthorized' },
  { name: 'a bad key and malformed JSON: 401 first', method: 'POST', url: '/api/v1/invited', auth: `raw:Bearer ${UNKNOWN_SK}`, contentType: JSON_TYPE, body: '{"email":', status: 401, code: 'unauthorized' },
  { name: 'a revoked key and email as a number: 401 first', method: 'POST', url: '/api/v1/invited', auth: 'revoked', contentType: JSON_TYPE, body: json({ email: 1 }), status: 401, code: 'unauthorized' },
  { name: 'a bad key and text/plain: 401 first', method: 'POST', url: '/api/v1/invited', auth: `raw:Bearer ${UNKNOWN_SK}`, contentType: 'text/plain', body: 'hello', status: 401, code: 'unauthorized' },
  { name: 'a bad key and multipart: 401 first', method: 'POST', url: '/api/v1/invited', auth: `raw:Bearer ${UNKNOWN_SK}`, contentType: MULTIPART, body: MULTIPART_BODY, status: 401, code: 'unauthorized' },
  // The body limit is enforced while the body is read, before any key is looked at.
  { name: 'a bad key and a body over 64 KiB: refused for its size', method: 'POST', url: '/api/v1/invited', auth: `raw:Bearer ${UNKNOWN_SK}`, contentType: JSON_TYPE, body: json({ email: big }), status: 400, code: 'invalid_request' },
  { name: 'no key and limit=abc: 401 first', method: 'GET', url: '/api/v1/entries?limit=abc', auth: 'none', status: 401, code: 'unauthorized' },
  { name: 'a publishable key and a made-up cursor: 401 first', method: 'GET', url: '/api/v1/entries?cursor=abc.def', auth: 'publishable', status: 401, code: 'unauthorized' },
  { name: 'no key and invite-next without count: 401 first', method: 'POST', url: '/api/v1/entries/invite-next', auth: 'none', contentType: JSON_TYPE, body: json({}), status: 401, code: 'unauthorized' },

  // ── List: limit ──────────────────────────────────────────────────────────────────────────────
  { name: 'limit=0', method: 'GET', url: '/api/v1/entries?limit=0', status: 400, code: 'invalid_request' },
  { name: 'limit=101', method: 'GET', url: '/api/v1/entries?limit=101', status: 400, code: 'invalid_request' },
  { name: 'limit=-1', method: 'GET', url: '/api/v1/entries?limit=-1', status: 400, code: 'invalid_request' },
  { name: 'limit=1.5', method: 'GET', url: '/api/v1/entries?limit=1.5', status: 400, code: 'invalid_request' },
  { name: 'limit=abc', method: 'GET', url: '/api/v1/entries?limit=abc', status: 400, code: 'invalid_request' },
  { name: 'limit empty', method: 'GET', url: '/api/v1/entries?limit=', status: 400, code: 'invalid_request' },
  { name: 'limit=1e1', method: 'GET', url: '/api/v1/entries?limit=1e1', status: 400, code: 'invalid_request' },
  { name: 'limit of 20 digits', method: 'GET', url: '/api/v1/entries?limit=99999999999999999999', status: 400, code: 'invalid_request' },
  { name: 'limit given twice', method: 'GET', url: '/api/v1/entries?limit=1&limit=2', status: 400, code: 'invalid_request' },
  // ── List: state ──────────────────────────────────────────────────────────────────────────────
  { name: 'an unknown state', method: 'GET', url: '/api/v1/entries?state=deleted', status: 400, code: 'invalid_request' },
  { name: 'state in capitals', method: 'GET', url: '/api/v1/entries?state=CONFIRMED', status: 400, code: 'invalid_request' },
  { name: 'state empty', method: 'GET', url: '/api/v1/entries?state=', status: 400, code: 'invalid_request' },
  { name: 'state given twice', method: 'GET', url: '/api/v1/entries?state=confirmed&state=pending', status: 400, code: 'invalid_request' },
  { name: 'percent-encoding garbage as state', method: 'GET', url: '/api/v1/entries?state=%ZZ', status: 400, code: 'invalid_request' },
  // ── List: email ──────────────────────────────────────────────────────────────────────────────
  { name: 'a bad email filter', method: 'GET', url: '/api/v1/entries?email=a%40', status: 400, code: 'invalid_email' },
  { name: 'an empty email filter', method: 'GET', url: '/api/v1/entries?email=', status: 400, code: 'invalid_email' },
  { name: 'an email filter with a NUL byte', method: 'GET', url: '/api/v1/entries?email=a%00b%40example.com', status: 400, code: 'invalid_email' },
  { name: 'an email filter of invalid UTF-8', method: 'GET', url: '/api/v1/entries?email=%C3%28%40example.com', status: 400, code: 'invalid_email' },
  { name: 'broken percent-encoding in the email filter', method: 'GET', url: '/api/v1/entries?email=%E0%A4%A', status: 400, code: 'invalid_email' },
  { name: 'a 300-character email filter', method: 'GET', url: `/api/v1/entries?email=${'a'.repeat(290)}%40example.com`, status: 400, code: 'invalid_email' },
  { name: 'email filter given twice', method: 'GET', url: '/api/v1/entries?email=a%40example.com&email=b%40example.com', status: 400, code: 'invalid_request' },
  // ── List: cursor ─────────────────────────────────────────────────────────────────────────────
  { name: 'a made-up cursor', method: 'GET', url: '/api/v1/entries?cursor=abc.def', status: 400, code: 'invalid_cursor' },
  { name: 'an empty cursor', method: 'GET', url: '/api/v1/entries?cursor=', status: 400, code: 'invalid_cursor' },
  { name: 'a cursor of NUL bytes', method: 'GET', url: '/api/v1/entries?cursor=%00.%00', status: 400, code: 'invalid_cursor' },
  { name: 'a cursor of invalid base64 and UTF-8', method: 'GET', url: '/api/v1/entries?cursor=%FF%FE.%C3%28', status: 400, code: 'invalid_cursor' },
  { name: 'a 5 KB cursor', method: 'GET', url: `/api/v1/entries?cursor=${'a'.repeat(5000)}`, status: 400, code: 'invalid_cursor' },
  { name: 'a real cursor with its signature changed', method: 'GET', url: '/api/v1/entries?limit=1&state=confirmed&cursor={{tamperedCursor}}', status: 400, code: 'invalid_cursor' },
  { name: 'a real cursor with another filter', method: 'GET', url: '/api/v1/entries?limit=1&cursor={{cursor}}', status: 400, code: 'invalid_cursor' },
  { name: 'a real cursor with the live key', method: 'GET', url: '/api/v1/entries?limit=1&state=confirmed&cursor={{cursor}}', auth: 'live', status: 400, code: 'invalid_cursor' },
  { name: 'cursor given twice', method: 'GET', url: '/api/v1/entries?limit=1&state=confirmed&cursor={{cursor}}&cursor={{cursor}}', status: 400, code: 'invalid_request' },

  // ── Entry ids ────────────────────────────────────────────────────────────────────────────────
  { name: 'an unknown entry id', method: 'GET', url: '/api/v1/entries/ent_000000000000000000000000', status: 404, code: 'not_found' },
  { name: 'an id with SQL in it', method: 'GET', url: "/api/v1/entries/'%20OR%201=1--", status: 404, code: 'not_found' },
  { name: 'an entry of another product', method: 'GET', url: '/api/v1/entries/{{otherId}}', status: 404, code: 'not_found' },
  { name: 'an entry of the other mode', method: 'GET', url: '/api/v1/entries/{{id}}', auth: 'live', status: 404, code: 'not_found' },
  { name: 'an id with a NUL byte', method: 'GET', url: '/api/v1/entries/ent_%00x', status: 404, code: 'not_found' },
  { name: 'an id of percent-encoding garbage', method: 'GET', url: '/api/v1/entries/%ZZ', status: 400, code: 'invalid_request' },
  { name: 'an id that is a lone %', method: 'GET', url: '/api/v1/entries/%', status: 400, code: 'invalid_request' },
  { name: 'delete an unknown id', method: 'DELETE', url: '/api/v1/entries/ent_000000000000000000000000', status: 404, code: 'not_found' },
  { name: 'delete an entry of another product', method: 'DELETE', url: '/api/v1/entries/{{otherId}}', status: 404, code: 'not_found' },
  { name: 'delete an entry with the live key', method: 'DELETE', url: '/api/v1/entries/{{id}}', auth: 'live', status: 404, code: 'not_found' },
  { name: 'delete a 2 KB id', method: 'DELETE', url: `/api/v1/entries/${'e'.repeat(2048)}`, status: 404, code: 'not_found' },
  { name: 'delete an id with a NUL byte', method: 'DELETE', url: '/api/v1/entries/ent_%00x', status: 404, code: 'not_found' },
  { name: 'delete an id of invalid UTF-8', method: 'DELETE', url: '/api/v1/entries/%C3%28', status: 400, code: 'invalid_request' },

  // ── Unknown routes ───────────────────────────────────────────────────────────────────────────
  { name: 'a misspelt route', method: 'GET', url: '/api/v1/entrees', status: 404, code: 'not_found' },
  { name: 'another API version', method: 'GET', url: '/api/v2/entries', status: 404, code: 'not_found' },
  { name: 'a path below an entry', method: 'GET', url: '/api/v1/entries/{{id}}/notes', status: 404, code: 'not_found' },
  { name: 'PUT on an entry', method: 'PUT', url: '/api/v1/entries/{{id}}', contentType: JSON_TYPE, body: json({ state: 'invited' }), status: 404, code: 'not_found' },
  { name: 'PATCH on the list', method: 'PATCH', url: '/api/v1/entries', contentType: JSON_TYPE, body: json({}), status: 404, code: 'not_found' },
  { name: 'POST on the list', method: 'POST', url: '/api/v1/entries', contentType: JSON_TYPE, body: json({ email: 'new@example.com' }), status: 404, code: 'not_found' },
  { name: 'GET on the sign-up endpoint', method: 'GET', url: '/public/v1/signups', status: 404, code: 'not_found' },
  { name: 'an unknown path without a key', method: 'GET', url: '/nothing-here', status: 404, code: 'not_found' },

  // ── POST /api/v1/invited ─────────────────────────────────────────────────────────────────────
  { name: 'malformed JSON', method: 'POST', url: '/api/v1/invited', contentType: JSON_TYPE, body: '{"email":', status: 400, code: 'invalid_request' },
  { name: 'an empty body with content-type JSON', method: 'POST', url: '/api/v1/invited', contentType: JSON_TYPE, body: '', status: 400, code: 'invalid_request' },
  { name: 'a JSON array', method: 'POST', url: '/api/v1/invited', contentType: JSON_TYPE, body: '[]', status: 400, code: 'invalid_request' },
  { name: 'JSON null', method: 'POST', url: '/api/v1/invited', contentType: JSON_TYPE, body: 'null', status: 400, code: 'invalid_request' },
  { name: 'a JSON string', method: 'POST', url: '/api/v1/invited', contentType: JSON_TYPE, body: '"a@example.com"', status: 400, code: 'invalid_request' },
  { name: 'a __proto__ member', method: 'POST', url: '/api/v1/invited', contentType: JSON_TYPE, body: '{"__proto__":{"email":"a@example.com"}}', status: 400, code: 'invalid_request' },
  { name: 'email missing', method: 'POST', url: '/api/v1/invited', contentType: JSON_TYPE, body: json({}), status: 400, code: 'invalid_email' },
  { name: 'email as a number', method: 'POST', url: '/api/v1/invited', contentType: JSON_TYPE, body: json({ email: 1 }), status: 400, code: 'invalid_email' },
  { name: 'email as an array', method: 'POST', url: '/api/v1/invited', contentType: JSON_TYPE, body: json({ email: ['a@example.com'] }), status: 400, code: 'invalid_email' },
  { name: 'email as an object', method: 'POST', url: '/api/v1/invited', contentType: JSON_TYPE, body: json({ email: { $ne: null } }), status: 400, code: 'invalid_email' },
  { name: 'email as null', method: 'POST', url: '/api/v1/invited', contentType: JSON_TYPE, body: json({ email: null }), status: 400, code: 'invalid_email' },
  { name: 'email without @', method: 'POST', url: '/api/v1/invited', contentType: JSON_TYPE, body: json({ email: 'example.com' }), status: 400, code: 'invalid_email' },
  { name: 'a 300-character email', method: 'POST', url: '/api/v1/invited', contentType: JSON_TYPE, body: json({ email: `${'a'.repeat(290)}@example.com` }), status: 400, code: 'invalid_email' },
  { name: 'an email with a NUL byte', method: 'POST', url: '/api/v1/invited', contentType: JSON_TYPE, body: json({ email: 'a\u0000b@example.com' }), status: 400, code: 'invalid_email' },
  { name: 'an email of invalid UTF-8 bytes', method: 'POST', url: '/api/v1/invited', contentType: JSON_TYPE, body: emailOfInvalidUtf8(), status: 400, code: 'invalid_email' },
  { name: 'text/plain instead of JSON', method: 'POST', url: '/api/v1/invited', contentType: 'text/plain', body: json({ email: 'a@example.com' }), status: 400, code: 'invalid_request' },
  { name: 'a form instead of JSON', method: 'POST', url: '/api/v1/invited', contentType: FORM, body: 'email=a%40example.com', status: 400, code: 'invalid_request' },
  { name: 'multipart instead of JSON', method: 'POST', url: '/api/v1/invited', contentType: MULTIPART, body: MULTIPART_BODY, status: 400, code: 'invalid_request' },
  { name: 'XML instead of JSON', method: 'POST', url: '/api/v1/invited', contentType: 'application/xml', body: '<email>a@example.com</email>', status: 400, code: 'invalid_request' },
  { name: 'a JSON body without a content type', method: 'POST', url: '/api/v1/invited', body: json({ email: 'a@example.com' }), status: 400, code: 'invalid_request' },
  { name: 'a body over 64 KiB', method: 'POST', url: '/api/v1/invited', contentType: JSON_TYPE, body: json({ email: big }), status: 400, code: 'invalid_request' },
  // ── GET /api/v1/invited ──────────────────────────────────────────────────────────────────────
  { name: 'GET invited without email', method: 'GET', url: '/api/v1/invited', status: 400, code: 'invalid_email' },
  { name: 'GET invited with an empty email', method: 'GET', url: '/api/v1/invited?email=', status: 400, code: 'invalid_email' },
  { name: 'GET invited with email twice', method: 'GET', url: '/api/v1/invited?email=a%40example.com&email=b%40example.com', status: 400, code: 'invalid_email' },
  { name: 'GET invited with a NUL byte', method: 'GET', url: '/api/v1/invited?email=a%00%40example.com', status: 400, code: 'invalid_email' },
  { name: 'GET invited with invalid UTF-8', method: 'GET', url: '/api/v1/invited?email=%FF%40example.com', status: 400, code: 'invalid_email' },
  { name: 'GET invited with percent-encoding garbage', method: 'GET', url: '/api/v1/invited?email=%ZZ%40example.com', status: 400, code: 'invalid_email' },
  { name: 'GET invited with a 5 KB address', method: 'GET', url: `/api/v1/invited?email=${'a'.repeat(5000)}%40example.com`, status: 400, code: 'invalid_email' },

  // ── Invitation endpoints ─────────────────────────────────────────────────────────────────────
  { name: 'invite-next without count', method: 'POST', url: '/api/v1/entries/invite-next', contentType: JSON_TYPE, body: json({}), status: 400, code: 'invalid_request' },
  // ── Text PostgreSQL cannot store, in the API's stored JSON fields (a release's) ─────────────
  ...[
    // As JSON escapes: the body is written as it goes on the wire.
    ['a NUL', 'a\\u0000b'],
    ['half a character', 'a\\ud83db'],
  ].flatMap(([what, text]) => [
    { name: `a release whose pattern holds ${what}`, method: 'POST', url: '/api/v1/releases', contentType: JSON_TYPE, body: `{"count":1,"pattern":"0 9 * * 1${text}","timeZone":"UTC"}`, status: 400, code: 'invalid_request' } as const,
    { name: `a release whose time zone holds ${what}`, method: 'POST', url: '/api/v1/releases', contentType: JSON_TYPE, body: `{"count":1,"pattern":"0 9 * * 1","timeZone":"UTC${text}"}`, status: 400, code: 'invalid_request' } as const,
    { name: `an address to check holding ${what}`, method: 'POST', url: '/api/v1/invited', contentType: JSON_TYPE, body: `{"email":"a${text}@example.com"}`, status: 400, code: 'invalid_email' } as const,
  ]),
  { name: 'invite-next count 0', method: 'POST', url: '/api/v1/entries/invite-next', contentType: JSON_TYPE, body: json({ count: 0 }), status: 400, code: 'invalid_request' },
  { name: 'invite-next count 1001', method: 'POST', url: '/api/v1/entries/invite-next', contentType: JSON_TYPE, body: json({ count: 1001 }), status: 400, code: 'invalid_request' },
  { name: 'invite-next count as a string', method: 'POST', url: '/api/v1/entries/invite-next', contentType: JSON_TYPE, body: json({ count: '5' }), status: 400, code: 'invalid_request' },
  { name: 'invite-next count 2.5', method: 'POST', url: '/api/v1/entries/invite-next', contentType: JSON_TYPE, body: json({ count: 2.5 }), status: 400, code: 'invalid_request' },
  { name: 'invite-next count null', method: 'POST', url: '/api/v1/entries/invite-next', contentType: JSON_TYPE, body: json({ count: null }), status: 400, code: 'invalid_request' },
  { name: 'invite-next with a 256-character Idempotency-Key', method: 'POST', url: '/api/v1/entries/invite-next', headers: { 'idempotency-key': 'k'.repeat(256) }, contentType: JSON_TYPE, body: json({ count: 1 }), status: 400, code: 'invalid_idempotency_key' },
  { name: 'invite-next with a space in the Idempotency-Key', method: 'POST', url: '/api/v1/entries/invite-next', headers: { 'idempotency-key': 'a b' }, contentType: JSON_TYPE, body: json({ count: 1 }), status: 400, code: 'invalid_idempotency_key' },
  { name: 'invite-next with an empty Idempotency-Key', method: 'POST', url: '/api/v1/entries/invite-next', headers: { 'idempotency-key': '' }, contentType: JSON_TYPE, body: json({ count: 1 }), status: 400, code: 'invalid_idempotency_key' },
  { name: 'move-up without places', method: 'POST', url: '/api/v1/entries/{{id}}/move-up', contentType: JSON_TYPE, body: json({}), status: 400, code: 'invalid_request' },
  { name: 'move-up places 0', method: 'POST', url: '/api/v1/entries/{{id}}/move-up', contentType: JSON_TYPE, body: json({ places: 0 }), status: 400, code: 'invalid_request' },
  { name: 'move-up places 1e300', method: 'POST', url: '/api/v1/entries/{{id}}/move-up', contentType: JSON_TYPE, body: '{"places":1e300}', status: 400, code: 'invalid_request' },
  { name: 'move-up an entry of another product', method: 'POST', url: '/api/v1/entries/{{otherId}}/move-up', contentType: JSON_TYPE, body: json({ places: 1 }), status: 404, code: 'not_found' },
  { name: 'move-up a pending entry', method: 'POST', url: '/api/v1/entries/{{pendingId}}/move-up', contentType: JSON_TYPE, body: json({ places: 1 }), status: 409, code: 'not_confirmed' },
  { name: 'move-up an id with a NUL byte', method: 'POST', url: '/api/v1/entries/ent_%00x/move-up', contentType: JSON_TYPE, body: json({ places: 1 }), status: 404, code: 'not_found' },
  { name: 'verify without token', method: 'POST', url: '/api/v1/invites/verify', contentType: JSON_TYPE, body: json({}), status: 400, code: 'invalid_request' },
  { name: 'verify with a numeric token', method: 'POST', url: '/api/v1/invites/verify', contentType: JSON_TYPE, body: json({ token: 12345 }), status: 400, code: 'invalid_request' },
  { name: 'redeem with an empty token', method: 'POST', url: '/api/v1/invites/redeem', contentType: JSON_TYPE, body: json({ token: '' }), status: 400, code: 'invalid_request' },
  { name: 'redeem with malformed JSON', method: 'POST', url: '/api/v1/invites/redeem', contentType: JSON_TYPE, body: '{"token"', status: 400, code: 'invalid_request' },
  { name: 'redeem with a 256-character Idempotency-Key', method: 'POST', url: '/api/v1/invites/redeem', headers: { 'idempotency-key': 'k'.repeat(256) }, contentType: JSON_TYPE, body: json({ token: 'x' }), status: 400, code: 'invalid_idempotency_key' },
  { name: 'invite an unknown id', method: 'POST', url: '/api/v1/entries/ent_nothing/invite', status: 404, code: 'not_found' },
  { name: 'invite an entry of another product', method: 'POST', url: '/api/v1/entries/{{otherId}}/invite', status: 404, code: 'not_found' },
  { name: 'invite an id with a NUL byte', method: 'POST', url: '/api/v1/entries/ent_%00x/invite', status: 404, code: 'not_found' },
  { name: 'invite a pending entry', method: 'POST', url: '/api/v1/entries/{{pendingId}}/invite', status: 409, code: 'not_confirmed' },
  { name: 'reinvite a confirmed entry', method: 'POST', url: '/api/v1/entries/{{id}}/reinvite', status: 409, code: 'not_invited' },

  // ── Public sign-up, JSON ─────────────────────────────────────────────────────────────────────
  { name: 'sign-up without a key', method: 'POST', url: '/public/v1/signups', contentType: JSON_TYPE, body: json({ email: 'new@example.com' }), status: 401, code: 'unauthorized' },
  { name: 'sign-up with an unknown key', method: 'POST', url: '/public/v1/signups', contentType: JSON_TYPE, body: json({ key: 'pk_test_nope', email: 'new@example.com' }), status: 401, code: 'unauthorized' },
  { name: 'sign-up with the secret key', method: 'POST', url: '/public/v1/signups', contentType: JSON_TYPE, body: (v) => json({ key: v.sk, email: 'new@example.com' }), status: 401, code: 'unauthorized' },
  { name: 'sign-up with a numeric key', method: 'POST', url: '/public/v1/signups', contentType: JSON_TYPE, body: json({ key: 42, email: 'new@example.com' }), status: 401, code: 'unauthorized' },
  { name: 'sign-up with the key in an array', method: 'POST', url: '/public/v1/signups', contentType: JSON_TYPE, body: (v) => json({ key: [v.pk], email: 'new@example.com' }), status: 401, code: 'unauthorized' },
  { name: 'sign-up with an unknown key and a bad email: 401 first', method: 'POST', url: '/public/v1/signups', contentType: JSON_TYPE, body: json({ key: 'pk_test_nope', email: 'nope' }), status: 401, code: 'unauthorized' },
  { name: 'sign-up without an email', method: 'POST', url: '/public/v1/signups', contentType: JSON_TYPE, body: (v) => json({ key: v.pk }), status: 400, code: 'invalid_email' },
  { name: 'sign-up with an object as email', method: 'POST', url: '/public/v1/signups', contentType: JSON_TYPE, body: (v) => json({ key: v.pk, email: { $ne: null } }), status: 400, code: 'invalid_email' },
  { name: 'sign-up with an array as email', method: 'POST', url: '/public/v1/signups', contentType: JSON_TYPE, body: (v) => json({ key: v.pk, email: ['new@example.com'] }), status: 400, code: 'invalid_email' },
  { name: 'sign-up with null as email', method: 'POST', url: '/public/v1/signups', contentType: JSON_TYPE, body: (v) => json({ key: v.pk, email: null }), status: 400, code: 'invalid_email' },
  { name: 'sign-up with a number as email', method: 'POST', url: '/public/v1/signups', contentType: JSON_TYPE, body: (v) => json({ key: v.pk, email: 5 }), status: 400, code: 'invalid_email' },
  { name: 'sign-up with an address with spaces inside', method: 'POST', url: '/public/v1/signups', contentType: JSON_TYPE, body: (v) => json({ key: v.pk, email: 'a b@example.com' }), status: 400, code: 'invalid_email' },
  { name: 'sign-up with a 300-character address', method: 'POST', url: '/public/v1/signups', contentType: JSON_TYPE, body: (v) => json({ key: v.pk, email: `${'a'.repeat(290)}@example.com` }), status: 400, code: 'invalid_email' },
  { name: 'sign-up with a NUL byte in the address', method: 'POST', url: '/public/v1/signups', contentType: JSON_TYPE, body: (v) => json({ key: v.pk, email: 'a\u0000b@example.com' }), status: 400, code: 'invalid_email' },
  { name: 'sign-up with an address of invalid UTF-8 bytes', method: 'POST', url: '/public/v1/signups', contentType: JSON_TYPE, body: (v) => emailOfInvalidUtf8(`{"key":"${v.pk}",`), status: 400, code: 'invalid_email' },
  { name: 'sign-up with malformed JSON', method: 'POST', url: '/public/v1/signups', contentType: JSON_TYPE, body: '{"key":', status: 400, code: 'invalid_request' },
  { name: 'sign-up with an empty JSON body', method: 'POST', url: '/public/v1/signups', contentType: JSON_TYPE, body: '', status: 400, code: 'invalid_request' },
  { name: 'sign-up with JSON null', method: 'POST', url: '/public/v1/signups', contentType: JSON_TYPE, body: 'null', status: 400, code: 'invalid_request' },
  { name: 'sign-up with a JSON array', method: 'POST', url: '/public/v1/signups', contentType: JSON_TYPE, body: (v) => json([v.pk, 'new@example.com']), status: 400, code: 'invalid_request' },
  { name: 'sign-up as text/plain', method: 'POST', url: '/public/v1/signups', contentType: 'text/plain', body: (v) => json({ key: v.pk, email: 'new@example.com' }), status: 400, code: 'invalid_request' },
  { name: 'sign-up as multipart', method: 'POST', url: '/public/v1/signups', contentType: MULTIPART, body: MULTIPART_BODY, status: 400, code: 'invalid_request' },
  { name: 'sign-up with a body over 64 KiB', method: 'POST', url: '/public/v1/signups', contentType: JSON_TYPE, body: (v) => json({ key: v.pk, email: 'new@example.com', ref: big }), status: 400, code: 'invalid_request' },
  // ── Public sign-up, HTML form (errors are pages) ─────────────────────────────────────────────
  { name: 'form sign-up without a key', method: 'POST', url: '/public/v1/signups', contentType: FORM, body: 'email=new%40example.com', status: 401, page: true },
  { name: 'form sign-up with a bad email', method: 'POST', url: '/public/v1/signups', contentType: FORM, body: (v) => `key=${v.pk}&email=nope`, status: 400, page: true },
  { name: 'form sign-up with email twice', method: 'POST', url: '/public/v1/signups', contentType: FORM, body: (v) => `key=${v.pk}&email=new%40example.com&email=two%40example.com`, status: 400, page: true },
  { name: 'form sign-up with invalid UTF-8 in the email', method: 'POST', url: '/public/v1/signups', contentType: FORM, body: (v) => `key=${v.pk}&email=%FF%FE%40example.com`, status: 400, page: true },
  { name: 'form sign-up with a NUL byte in the email', method: 'POST', url: '/public/v1/signups', contentType: FORM, body: (v) => `key=${v.pk}&email=a%00b%40example.com`, status: 400, page: true },
  { name: 'form sign-up over 64 KiB', method: 'POST', url: '/public/v1/signups', contentType: FORM, body: (v) => `key=${v.pk}&email=${big}`, status: 400, page: true },

  // ── Hosted pages ─────────────────────────────────────────────────────────────────────────────
  { name: 'an unknown confirm token (GET)', method: 'GET', url: '/confirm/not-a-token', status: 404, page: true },
  { name: 'an unknown confirm token (POST)', method: 'POST', url: '/confirm/not-a-token', status: 404, page: true },
  { name: 'a 4 KB confirm token', method: 'POST', url: `/confirm/${'t'.repeat(4096)}`, status: 404, page: true },
  { name: 'a confirm token with one more character', method: 'POST', url: '/confirm/{{confirm}}x', status: 404, page: true },
  { name: 'a confirm token with a NUL byte', method: 'POST', url: '/confirm/%00{{confirm}}', status: 404, page: true },
  { name: 'the unsubscribe token as a confirm token', method: 'POST', url: '/confirm/{{unsubscribe}}', status: 404, page: true },
  { name: 'a confirm token of percent-encoding garbage', method: 'GET', url: '/confirm/%ZZ', status: 400, page: true },
  { name: 'an unknown unsubscribe token (GET)', method: 'GET', url: '/unsubscribe/not-a-token', status: 404, page: true },
  { name: 'an unknown unsubscribe token with a NUL byte (POST)', method: 'POST', url: '/unsubscribe/%00abc', status: 404, page: true },
  { name: 'the confirm token as an unsubscribe token', method: 'POST', url: '/unsubscribe/{{confirm}}', status: 404, page: true },
  { name: 'an unsubscribe token cut short', method: 'POST', url: '/unsubscribe/{{unsubscribeShort}}', status: 404, page: true },
  { name: 'an unsubscribe token of invalid UTF-8', method: 'POST', url: '/unsubscribe/%FF', status: 400, page: true },
  { name: 'the sign-up page of an unknown key', method: 'GET', url: '/w/pk_test_nope', status: 404, page: true },
  { name: 'the sign-up page of the secret key', method: 'GET', url: '/w/{{sk}}', status: 404, page: true },
  { name: 'the sign-up page of a key with a NUL byte', method: 'GET', url: '/w/pk_%00', status: 404, page: true },
  { name: 'the sign-up page of a key of invalid UTF-8', method: 'GET', url: '/w/%FF', status: 400, page: true },
  { name: 'a dashboard page of invalid UTF-8', method: 'GET', url: '/dashboard/%FF/live/entries', status: 400, page: true },

  // ── Dashboard pages, signed in ───────────────────────────────────────────────────────────────
  { name: 'a dashboard search of a NUL byte', ...dashboard, method: 'GET', url: `${D}/entries?email=%00`, status: 400, page: true },
  { name: 'a dashboard search with a NUL byte inside', ...dashboard, method: 'GET', url: `${D}/entries?email=a%00b%40example.com`, status: 400, page: true },
  { name: 'a dashboard search with CRLF inside', ...dashboard, method: 'GET', url: `${D}/entries?email=a%0D%0Ab`, status: 400, page: true },
  { name: 'a dashboard list of an unknown state', ...dashboard, method: 'GET', url: `${D}/entries?state=deleted`, status: 400, page: true },
  { name: 'a dashboard list with state twice', ...dashboard, method: 'GET', url: `${D}/entries?state=pending&state=confirmed`, status: 400, page: true },
  { name: 'a dashboard list with a made-up cursor', ...dashboard, method: 'GET', url: `${D}/entries?cursor=abc.def`, status: 400, page: true },
  { name: 'a dashboard list with a 50 KB cursor', ...dashboard, method: 'GET', url: `${D}/entries?cursor=${'a'.repeat(50_000)}`, status: 400, page: true },
  { name: 'a dashboard list with limit=abc', ...dashboard, method: 'GET', url: `${D}/entries?limit=abc`, status: 400, page: true },
  { name: 'a CSV export searching a NUL byte', ...dashboard, method: 'GET', url: `${D}/entries.csv?email=%00`, status: 400, page: true },
  { name: 'a CSV export of an unknown state', ...dashboard, method: 'GET', url: `${D}/entries.csv?state=deleted`, status: 400, page: true },
  { name: 'a dashboard entry id of non-ASCII', ...dashboard, method: 'GET', url: `${D}/entries/%C3%A9`, status: 404, page: true },
  { name: 'a dashboard entry id with CRLF', ...dashboard, method: 'GET', url: `${D}/entries/ent_%0D%0Ax`, status: 404, page: true },
  { name: 'a dashboard entry id with a NUL byte', ...dashboard, method: 'GET', url: `${D}/entries/ent_%00x`, status: 404, page: true },
  { name: 'a 5 KB dashboard entry id', ...dashboard, method: 'GET', url: `${D}/entries/${'e'.repeat(5000)}`, status: 404, page: true },
  { name: 'a dashboard entry of another product', ...dashboard, method: 'GET', url: `${D}/entries/{{otherId}}`, status: 404, page: true },
  { name: 'a dashboard mode with CRLF', ...dashboard, method: 'GET', url: '/dashboard/{{productId}}/te%0D%0Ast/entries', status: 404, page: true },
  { name: 'a dashboard product id of non-ASCII', ...dashboard, method: 'GET', url: '/dashboard/%C3%A9/test/entries', status: 404, page: true },
  { name: 'a delivery log of a non-ASCII endpoint id', ...dashboard, method: 'GET', url: `${D}/webhooks/%C3%A9`, status: 404, page: true },
  { name: 'a delivery log of an endpoint id with a NUL byte', ...dashboard, method: 'GET', url: `${D}/webhooks/we_%00`, status: 404, page: true },
  // ── Dashboard entry actions ──────────────────────────────────────────────────────────────────
  { name: 'move up a non-ASCII entry id', ...dashboard, method: 'POST', url: `${D}/entries/%C3%A9/move-up`, body: '_csrf={{csrf}}&places=lots', status: 404, page: true },
  { name: 'move up an entry id with CRLF', ...dashboard, method: 'POST', url: `${D}/entries/a%0D%0Ab/move-up`, body: '_csrf={{csrf}}&places=lots', status: 404, page: true },
  { name: 'invite a non-ASCII entry id', ...dashboard, method: 'POST', url: `${D}/entries/%C3%A9/invite`, body: '_csrf={{csrf}}', status: 404, page: true },
  { name: 'an entry action of non-ASCII', ...dashboard, method: 'POST', url: `${ENTRY}/%C3%A9`, body: '_csrf={{csrf}}', status: 404, page: true },
  { name: 'an entry action with CRLF', ...dashboard, method: 'POST', url: `${ENTRY}/de%0D%0Alete`, body: '_csrf={{csrf}}', status: 404, page: true },
  { name: 'move up by "lots" places', ...movedBack, body: '_csrf={{csrf}}&places=lots' },
  { name: 'move up without places', ...movedBack, body: '_csrf={{csrf}}' },
  { name: 'move up by a NUL byte', ...movedBack, body: '_csrf={{csrf}}&places=%00' },
  { name: 'move up by places given twice', ...movedBack, body: '_csrf={{csrf}}&places=1&places=2' },
  { name: 'move up by 1e300 places', ...movedBack, body: '_csrf={{csrf}}&places=1e300' },
  { name: 'move up by 0x10 places', ...movedBack, body: '_csrf={{csrf}}&places=0x10' },
  { name: 'move up by non-ASCII digits', ...movedBack, body: '_csrf={{csrf}}&places=%EF%BC%95' },
  { name: 'move up by 2,000 digits', ...movedBack, body: `_csrf={{csrf}}&places=${'9'.repeat(2000)}` },
  { name: 'move up by JSON true', ...movedBack, contentType: JSON_TYPE, body: '{"_csrf":"{{csrf}}","places":true}' },
  { name: 'move up by a JSON array', ...movedBack, contentType: JSON_TYPE, body: '{"_csrf":"{{csrf}}","places":[5]}' },
  // ── Dashboard: invite the next N ─────────────────────────────────────────────────────────────
  { name: 'invite the next "abc"', ...inviteNext, body: '_csrf={{csrf}}&count=abc' },
  { name: 'invite the next without count', ...inviteNext, body: '_csrf={{csrf}}' },
  { name: 'invite the next NUL', ...inviteNext, body: '_csrf={{csrf}}&count=%00' },
  { name: 'invite the next with count twice', ...inviteNext, body: '_csrf={{csrf}}&count=1&count=2' },
  { name: 'invite the next 0x1', ...inviteNext, body: '_csrf={{csrf}}&count=0x1' },
  { name: 'invite the next 1001', ...inviteNext, body: '_csrf={{csrf}}&count=1001' },
  { name: 'invite the next non-ASCII digit', ...inviteNext, body: '_csrf={{csrf}}&count=%EF%BC%91' },
  { name: 'invite the next JSON true', ...inviteNext, contentType: JSON_TYPE, body: '{"_csrf":"{{csrf}}","count":true}' },
  { name: 'invite the next JSON [1]', ...inviteNext, contentType: JSON_TYPE, body: '{"_csrf":"{{csrf}}","count":[1]}' },
  // ── Dashboard: settings ──────────────────────────────────────────────────────────────────────
  { name: 'a product name with a NUL byte', ...saveSettings, body: settings({ name: 'Ac\u0000me' }) },
  { name: 'a 5,000-character product name', ...saveSettings, body: settings({ name: 'n'.repeat(5000) }) },
  { name: 'the product name twice', ...saveSettings, body: `${settings({})}&name=Other` },
  { name: 'the product name as a JSON number', ...saveSettings, contentType: JSON_TYPE, body: '{"_csrf":"{{csrf}}","name":5,"referralPlaces":"1"}' },
  { name: 'a sender name with CRLF', ...saveSettings, url: `${D}/settings/mail`, body: `_csrf={{csrf}}&${new URLSearchParams({ senderName: 'Evil\r\nBcc: x@example.com' })}` },
  { name: 'a milestone name with a NUL byte', ...saveSettings, url: `${D}/settings/leaderboard`, body: `_csrf={{csrf}}&${new URLSearchParams({ 'milestones.0.referrals': '3', 'milestones.0.name': 'Thr\u0000ee' })}` },
  { name: 'an invite URL with a NUL byte', ...saveSettings, body: settings({ inviteUrl: 'https://acme.example/\u0000' }) },
  { name: 'a sign-up URL with CRLF inside', ...saveSettings, body: settings({ signupUrl: 'https://acme.example/a\r\nb' }) },
  { name: 'a sign-up URL of non-ASCII', ...saveSettings, body: settings({ signupUrl: 'ｈｔｔｐｓ://acme.example/' }) },
  { name: 'referral places of non-ASCII digits', ...saveSettings, body: settings({ referralPlaces: '５' }) },
  { name: 'referral places of 2,000 digits', ...saveSettings, body: settings({ referralPlaces: '9'.repeat(2000) }) },
  { name: 'a __proto__ form field', ...saveSettings, body: `${settings({})}&__proto__=x` },
  // ── Dashboard: webhook endpoints ─────────────────────────────────────────────────────────────
  { name: 'an endpoint without a URL', ...addEndpoint, body: '_csrf={{csrf}}&events=entry.invited' },
  { name: 'an endpoint URL with a NUL byte', ...addEndpoint, body: `_csrf={{csrf}}&${new URLSearchParams({ url: 'https://93.184.216.34/\u0000', events: 'entry.invited' })}` },
  { name: 'an endpoint URL with CRLF inside', ...addEndpoint, body: `_csrf={{csrf}}&${new URLSearchParams({ url: 'https://93.184.216.34/a\r\nb', events: 'entry.invited' })}` },
  { name: 'an endpoint URL of non-ASCII', ...addEndpoint, body: `_csrf={{csrf}}&${new URLSearchParams({ url: 'ｈｔｔｐｓ://93.184.216.34/', events: 'entry.invited' })}` },
  { name: 'a 60 KB endpoint URL', ...addEndpoint, body: `_csrf={{csrf}}&url=http://${'a'.repeat(60_000)}&events=entry.invited` },
  { name: 'an endpoint URL as a JSON array', ...addEndpoint, contentType: JSON_TYPE, body: '{"_csrf":"{{csrf}}","url":["https://93.184.216.34/"],"events":"entry.invited"}' },
  { name: 'an endpoint of an unknown event', ...addEndpoint, body: '_csrf={{csrf}}&url=https://93.184.216.34/&events=entry.nothing' },
  { name: 'an endpoint of a NUL event', ...addEndpoint, body: '_csrf={{csrf}}&url=https://93.184.216.34/&events=%00' },
  { name: 'an endpoint of an unknown signature format', ...addEndpoint, body: '_csrf={{csrf}}&url=https://93.184.216.34/&events=entry.invited&signatureFormat=stripe' },
  { name: 'an endpoint of an empty signature format', ...addEndpoint, body: '_csrf={{csrf}}&url=https://93.184.216.34/&events=entry.invited&signatureFormat=' },
  { name: 'an endpoint of two signature formats', ...addEndpoint, body: '_csrf={{csrf}}&url=https://93.184.216.34/&events=entry.invited&signatureFormat=standard&signatureFormat=service' },
  { name: 'an endpoint of a signature format as a JSON array', ...addEndpoint, contentType: JSON_TYPE, body: '{"_csrf":"{{csrf}}","url":"https://93.184.216.34/","events":"entry.invited","signatureFormat":["standard"]}' },
  { name: 'an endpoint of events as JSON numbers', ...addEndpoint, contentType: JSON_TYPE, body: '{"_csrf":"{{csrf}}","url":"https://93.184.216.34/","events":[1]}' },
  { name: 'an endpoint action on a non-ASCII endpoint id', ...dashboard, method: 'POST', url: `${D}/webhooks/%C3%A9/test`, body: '_csrf={{csrf}}', status: 404, page: true },
  { name: 'an endpoint action of non-ASCII', ...dashboard, method: 'POST', url: `${D}/webhooks/{{endpointId}}/%C3%A9`, body: '_csrf={{csrf}}', status: 404, page: true },
  { name: 'an endpoint action with CRLF', ...dashboard, method: 'POST', url: `${D}/webhooks/{{endpointId}}/dele%0D%0Ate`, body: '_csrf={{csrf}}', status: 404, page: true },
  { name: 'retry a non-ASCII delivery id', ...dashboard, method: 'POST', url: `${D}/webhooks/{{endpointId}}/deliveries/%C3%A9/retry`, body: '_csrf={{csrf}}', status: 404, page: true },
  { name: 'retry a delivery id with CRLF', ...dashboard, method: 'POST', url: `${D}/webhooks/{{endpointId}}/deliveries/dlv_%0D%0A/retry`, body: '_csrf={{csrf}}', status: 404, page: true },
  // ── Dashboard: keys, CSRF and unreadable forms ───────────────────────────────────────────────
  { name: 'revoke a non-ASCII key id', ...dashboard, method: 'POST', url: `${D}/keys/%C3%A9/revoke`, body: '_csrf={{csrf}}', status: 404, page: true },
  { name: 'revoke a key id with CRLF', ...dashboard, method: 'POST', url: `${D}/keys/key_%0D%0A/revoke`, body: '_csrf={{csrf}}', status: 404, page: true },
  { name: 'revoke a key without the CSRF token', ...dashboard, method: 'POST', url: `${D}/keys/{{keyId}}/revoke`, body: '', status: 403, page: true },
  { name: 'revoke a key with the CSRF token twice', ...dashboard, method: 'POST', url: `${D}/keys/{{keyId}}/revoke`, body: '_csrf={{csrf}}&_csrf={{csrf}}', status: 403, page: true },
  { name: 'revoke a key with a CSRF token of NUL', ...dashboard, method: 'POST', url: `${D}/keys/{{keyId}}/revoke`, body: '_csrf=%00', status: 403, page: true },
  { name: 'a dashboard form as text/plain', ...dashboard, method: 'POST', url: `${D}/keys/{{keyId}}/revoke`, contentType: 'text/plain', body: '_csrf={{csrf}}', status: 403, page: true },
  { name: 'a dashboard form as multipart', ...dashboard, method: 'POST', url: `${D}/keys/{{keyId}}/revoke`, contentType: MULTIPART, body: MULTIPART_BODY, status: 403, page: true },
  { name: 'a dashboard form of malformed JSON', ...dashboard, method: 'POST', url: `${D}/keys/{{keyId}}/revoke`, contentType: JSON_TYPE, body: '{"_csrf":', status: 403, page: true },
  { name: 'a dashboard form over 64 KiB', ...dashboard, method: 'POST', url: `${D}/keys/{{keyId}}/revoke`, body: `_csrf={{csrf}}&x=${big}`, status: 400, page: true },
  { name: 'sign out with another token', ...dashboard, method: 'POST', url: '/dashboard/logout', body: '_csrf=guess', status: 403, page: true },
  // ── Dashboard login ──────────────────────────────────────────────────────────────────────────
  { name: 'a login form without its token', ...logIn, body: 'email=a%40example.com&password=x', status: 403 },
  { name: 'a login form with an empty token', ...logIn, body: '_csrf=&email=a%40example.com&password=x', status: 403 },
  { name: 'a login address with a NUL byte', ...logIn, body: '_csrf={{loginCsrf}}&email=a%00b%40example.com&password=x', status: 401 },
  { name: 'a login address given twice', ...logIn, body: '_csrf={{loginCsrf}}&email=a%40example.com&email=b%40example.com&password=x', status: 401 },
  { name: 'a 50 KB login password', ...logIn, body: `_csrf={{loginCsrf}}&email=a%40example.com&password=${'p'.repeat(50_000)}`, status: 401 },
];

describe('bad input', () => {
  let stack: Stack;
  let product: Product;
  let values: Values & { unsubscribeShort: string };
  let baseline: unknown;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api', 'mailer'], env: { RATE_LIMIT_SIGNUP: '1000/1m', RATE_LIMIT_API: '100000/1s' } });
    product = await stack.createProduct();
    const other = await stack.createProduct({ name: 'Other' });
    const pk = product.keys.test.publishable;
    const confirmed = await joinLine(stack, pk, 'confirmed@example.com');
    await joinLine(stack, pk, 'second@example.com');
    await signUp(stack, pk, 'pending@example.com');
    const pendingMail = await stack.mail.waitFor('pending@example.com');
    const otherEntry = await joinLine(stack, other.keys.test.publishable, 'other@example.com');
    await stack.api.get(KeysService).revoke(other.keys.test.secret);

    const page = await stack.request({
      method: 'GET',
      url: '/api/v1/entries?limit=1&state=confirmed',
      headers: { authorization: `Bearer ${product.keys.test.secret}` },
    });
    const cursor: string = page.json().nextCursor;
    expect(cursor).toEqual(expect.any(String));
    const unsubscribe = new URL(linkIn(pendingMail, `${stack.config.PUBLIC_BASE_URL}/unsubscribe/`)).pathname.split('/').pop()!;
    const endpoint = await stack.api.get(WebhooksService).create({ productId: product.id, mode: 'test', url: 'https://93.184.216.34/hook' });
    const [key] = await stack.db.query("SELECT id FROM api_keys WHERE product_id = $1 AND mode = 'test' AND kind = 'secret'", [product.id]);
    await stack.api.get(DashboardAuthService).createUser('ada@example.com', PASSWORD, product.id);
    const { cookie: session, csrf } = await signIn(stack, 'ada@example.com');
    const loginPage = await stack.request({ method: 'GET', url: '/dashboard/login' });
    values = {
      id: confirmed.id,
      pendingId: (await stack.db.getRepository(EntryRecord).findOneByOrFail({ email: 'pending@example.com' })).id,
      otherId: otherEntry.id,
      confirm: (await confirmPath(stack, 'pending@example.com')).split('/').pop()!,
      unsubscribe,
      unsubscribeShort: unsubscribe.slice(0, -1),
      cursor,
      tamperedCursor: cursor.slice(0, -1) + (cursor.endsWith('A') ? 'B' : 'A'),
      sk: product.keys.test.secret,
      pk,
      liveSk: product.keys.live.secret,
      revokedSk: other.keys.test.secret,
      productId: product.id,
      endpointId: endpoint.id,
      keyId: key.id,
      session,
      csrf,
      loginCookie: String(loginPage.headers['set-cookie']).split(';')[0],
      loginCsrf: csrfIn(loginPage.text),
    };

    // The mailer has taken every confirmation mail out of the outbox: nothing moves any more.
    await waitFor(async () => {
      const [{ count }]: { count: number }[] = await stack.db.query(`SELECT count(*)::int AS count FROM outbox WHERE queue = $1`, [QueueName.Mail]);
      return count === 0;
    }, 'the mail outbox to drain');
    baseline = await snapshot();
  });
  afterAll(() => stack?.stop());

  /** Everything a bad request could have changed. */
  async function snapshot(): Promise<unknown> {
    const [counts] = await stack.db.query(
      `SELECT (SELECT count(*)::int FROM entries) AS entries, (SELECT count(*)::int FROM events) AS events,
              (SELECT count(*)::int FROM outbox) AS outbox, (SELECT count(*)::int FROM entry_tokens) AS entry_tokens,
              (SELECT count(*)::int FROM api_keys) AS api_keys, (SELECT count(*)::int FROM products) AS products`,
    );
    const [{ entries }] = await stack.db.query(`SELECT coalesce(json_agg(e ORDER BY e.id), '[]'::json) AS entries FROM entries e`);
    // What the dashboard's forms could change, beyond the entries.
    const [dashboard] = await stack.db.query(
      `SELECT (SELECT json_agg(p ORDER BY p.id) FROM products p) AS products, (SELECT json_agg(w ORDER BY w.id) FROM webhook_endpoints w) AS endpoints,
              (SELECT json_agg(k.revoked_at ORDER BY k.id) FROM api_keys k) AS revoked, (SELECT count(*)::int FROM deliveries) AS deliveries,
              (SELECT count(*)::int FROM dashboard_sessions) AS sessions`,
    );
    return { counts, entries, dashboard };
  }

  const fill = (text: string) => text.replace(/\{\{(\w+)\}\}/g, (_, name: string) => (values as unknown as Record<string, string>)[name]);

  function authorization(auth: Auth): string | undefined {
    switch (auth) {
      case 'none':
      case 'dashboard':
      case 'login':
        return undefined;
      case 'secret':
        return `Bearer ${values.sk}`;
      case 'live':
        return `Bearer ${values.liveSk}`;
      case 'publishable':
        return `Bearer ${values.pk}`;
      case 'revoked':
        return `Bearer ${values.revokedSk}`;
      default:
        return fill(auth.slice('raw:'.length));
    }
  }

  it(`the table holds at least 35 rows (${ROWS.length}), each expecting a 4xx and either an error code or a page, or a dashboard redirect`, () => {
    expect(ROWS.length).toBeGreaterThanOrEqual(35);
    for (const row of ROWS) {
      expect(row.location ? row.status === 303 : row.status >= 400 && row.status < 500).toBe(true);
      expect(Boolean(row.code) !== Boolean(row.page || row.location)).toBe(true);
    }
  });

  const title = (row: Row) => {
    const path = row.url.length > 60 ? `${row.url.slice(0, 57)}...` : row.url;
    return `${row.name}: ${row.method} ${path} → ${row.status} ${row.code ?? 'page'}`;
  };

  it.each(ROWS.map((row) => [title(row), row] as const))('%s', async (_title, row) => {
    const headers: Record<string, string> = { ...row.headers };
    const header = authorization(row.auth ?? (row.url.startsWith('/api/') ? 'secret' : 'none'));
    if (header !== undefined) headers.authorization = header;
    if (row.auth === 'dashboard') headers.cookie = values.session;
    if (row.auth === 'login') headers.cookie = values.loginCookie;
    if (row.contentType) headers['content-type'] = row.contentType;
    const body = typeof row.body === 'function' ? row.body(values) : typeof row.body === 'string' ? fill(row.body) : row.body;

    const response = await stack.request({ method: row.method, url: fill(row.url), headers, payload: body });

    // A JSON answer is compared whole; a page by its content type. Status and answer go together so
    // that a failure shows both.
    const type = String(response.headers['content-type'] ?? '');
    const answer = row.location ? response.headers.location : type.includes('json') ? response.json() : type;
    const param = answer?.error?.param !== undefined ? { param: expect.any(String) } : {};
    const expected = row.location
      ? fill(row.location)
      : row.code
        ? { error: { code: row.code, message: expect.stringMatching(/\S/), ...param } }
        : expect.stringContaining('text/html');
    expect({ status: response.status, answer }).toEqual({ status: row.status, answer: expected });
    expect(await snapshot()).toEqual(baseline);
  });

  it('the entry page shows only its own messages: ?message=constructor or __proto__ shows none', async () => {
    for (const message of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      const response = await stack.request({ method: 'GET', url: fill(`${ENTRY}?message=${message}`), headers: { cookie: values.session } });
      expect([message, response.status]).toEqual([message, 200]);
      expect([message, response.text]).toEqual([message, expect.not.stringMatching(/function|\[object|role="status"/)]);
    }
  });

  it('on a real connection, an entry action on a non-ASCII or CRLF id is 404 (no such id reaches a Location header)', async () => {
    // A real connection: inject skips Node's HTTP checks.
    const base = await stack.url();
    for (const id of ['%C3%A9', '%E2%82%AC', 'a%0D%0Ab']) {
      const response = await fetch(`${base}${fill(`${D}/entries/${id}/move-up`)}`, {
        method: 'POST',
        headers: { cookie: values.session, 'content-type': FORM },
        body: `_csrf=${values.csrf}&places=lots`,
        redirect: 'manual',
      });
      expect([id, response.status]).toEqual([id, 404]);
    }
    expect(await snapshot()).toEqual(baseline);
  });

  // Node's HTTP parser refuses headers over 16 KiB before Fastify sees the request.
  it('headers over 16 KiB (a 20 KB header, a 50 KB cursor) get 400 invalid_request in the error body, and change nothing', async () => {
    const base = await stack.url();
    const requests: [string, Record<string, string>][] = [
      ['/api/v1/entries', { authorization: `Bearer ${values.sk}`, 'x-padding': 'x'.repeat(20_000) }],
      [fill(`${D}/entries?cursor=${'a'.repeat(50_000)}`), { cookie: values.session }],
    ];
    for (const [path, headers] of requests) {
      const response = await fetch(`${base}${path}`, { headers });
      const answer = { status: response.status, type: response.headers.get('content-type'), body: await response.json() };
      expect(answer).toEqual({ status: 400, type: 'application/json; charset=utf-8', body: { error: { code: 'invalid_request', message: expect.stringMatching(/\S/) } } });
    }
    expect(await snapshot()).toEqual(baseline);
  });

  // After the table: a sign-up that works may change the data.
  it('a sign-up with a NUL byte in ref ignores it like any unknown ref (never a 5xx)', async () => {
    const viaJson = await stack.request({
      method: 'POST',
      url: '/public/v1/signups',
      headers: { 'content-type': JSON_TYPE },
      payload: json({ key: values.pk, email: 'nul-ref@example.com', ref: 'a\u0000b' }),
    });
    const viaForm = await stack.request({
      method: 'POST',
      url: '/public/v1/signups',
      headers: { 'content-type': FORM },
      payload: `key=${values.pk}&email=nul-ref-form%40example.com&ref=a%00b`,
    });
    expect([viaJson.status, viaForm.status]).toEqual([202, 303]);
    const entries = stack.db.getRepository(EntryRecord);
    expect(await entries.findOneBy({ email: 'nul-ref@example.com' })).toMatchObject({ state: 'pending', referredBy: null });
    expect(await entries.findOneBy({ email: 'nul-ref-form@example.com' })).toMatchObject({ state: 'pending', referredBy: null });
  });

  // The OpenAPI document says so: ref has no maxLength and is no reason to refuse a sign-up.
  it('a sign-up with a ref over 100 characters, or a ref that is no string, ignores it like any unknown ref', async () => {
    for (const [email, ref] of [['long-ref@example.com', 'k'.repeat(101)], ['number-ref@example.com', 12]] as const) {
      const response = await stack.request({ method: 'POST', url: '/public/v1/signups', headers: { 'content-type': JSON_TYPE }, payload: json({ key: values.pk, email, ref }) });
      expect([email, response.status]).toEqual([email, 202]);
      expect(await stack.db.getRepository(EntryRecord).findOneBy({ email })).toMatchObject({ state: 'pending', referredBy: null });
    }
  });
});
