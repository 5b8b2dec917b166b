import { bearer, confirmPath, joinLine, signUp } from './support/flows';
import { linkIn } from './support/smtp-sink';
import { Product, Stack } from './support/stack';

type Method = 'GET' | 'POST' | 'DELETE' | 'PUT';

interface Row {
  name: string;
  method: Method;
  /** May use {id}, {confirm} and {unsubscribe}, filled in once the data exists. */
  url: string;
  key?: 'secret' | 'publishable' | 'none' | string;
  contentType?: string;
  body?: string | Buffer;
  status: number;
  /** The error code of a JSON answer; hosted pages answer HTML with the status alone. */
  code?: string;
}

const json = (value: unknown) => JSON.stringify(value);
const big = 'x'.repeat(70 * 1024);

/** Bad requests and the answer each must get: a clear 4xx, never a 5xx, and nothing changed. */
const ROWS: Row[] = [
  // Authentication comes first
  { name: 'no Authorization header', method: 'GET', url: '/api/v1/entries', key: 'none', status: 401, code: 'unauthorized' },
  { name: 'Authorization without Bearer', method: 'GET', url: '/api/v1/entries', key: 'Basic dXNlcjpwYXNz', status: 401, code: 'unauthorized' },
  { name: 'a publishable key as bearer', method: 'GET', url: '/api/v1/entries', key: 'publishable', status: 401, code: 'unauthorized' },
  { name: 'an unknown secret key', method: 'GET', url: '/api/v1/entries', key: 'Bearer sk_live_nope', status: 401, code: 'unauthorized' },
  { name: 'a 10 KB bearer token', method: 'GET', url: '/api/v1/entries', key: `Bearer sk_${'a'.repeat(10_000)}`, status: 401, code: 'unauthorized' },
  { name: 'a bad key and a bad body: 401 first', method: 'POST', url: '/api/v1/invited', key: 'Bearer sk_test_nope', contentType: 'application/json', body: '{', status: 401, code: 'unauthorized' },
  // List parameters
  { name: 'limit=0', method: 'GET', url: '/api/v1/entries?limit=0', status: 400, code: 'invalid_request' },
  { name: 'limit=101', method: 'GET', url: '/api/v1/entries?limit=101', status: 400, code: 'invalid_request' },
  { name: 'limit=-1', method: 'GET', url: '/api/v1/entries?limit=-1', status: 400, code: 'invalid_request' },
  { name: 'limit=1.5', method: 'GET', url: '/api/v1/entries?limit=1.5', status: 400, code: 'invalid_request' },
  { name: 'limit=abc', method: 'GET', url: '/api/v1/entries?limit=abc', status: 400, code: 'invalid_request' },
  { name: 'limit given twice', method: 'GET', url: '/api/v1/entries?limit=1&limit=2', status: 400, code: 'invalid_request' },
  { name: 'an unknown state', method: 'GET', url: '/api/v1/entries?state=deleted', status: 400, code: 'invalid_request' },
  { name: 'state in capitals', method: 'GET', url: '/api/v1/entries?state=CONFIRMED', status: 400, code: 'invalid_request' },
  { name: 'a bad email filter', method: 'GET', url: '/api/v1/entries?email=a%40', status: 400, code: 'invalid_email' },
  { name: 'an email filter with a NUL byte', method: 'GET', url: '/api/v1/entries?email=a%00b%40example.com', status: 400, code: 'invalid_email' },
  { name: 'a made-up cursor', method: 'GET', url: '/api/v1/entries?cursor=abc.def', status: 400, code: 'invalid_cursor' },
  { name: 'a cursor of invalid base64 and UTF-8', method: 'GET', url: '/api/v1/entries?cursor=%FF%FE.%C3%28', status: 400, code: 'invalid_cursor' },
  { name: 'a 5 KB cursor', method: 'GET', url: `/api/v1/entries?cursor=${'a'.repeat(5000)}`, status: 400, code: 'invalid_request' },
  { name: 'broken percent-encoding in the query', method: 'GET', url: '/api/v1/entries?email=%E0%A4%A', status: 400 },
  // Entry ids
  { name: 'an unknown entry id', method: 'GET', url: '/api/v1/entries/ent_000000000000000000000000', status: 404, code: 'not_found' },
  { name: 'an id with SQL in it', method: 'GET', url: "/api/v1/entries/'%20OR%201=1--", status: 404, code: 'not_found' },
  { name: 'a 2 KB id', method: 'DELETE', url: `/api/v1/entries/${'e'.repeat(2048)}`, status: 404, code: 'not_found' },
  { name: 'an id of invalid UTF-8', method: 'DELETE', url: '/api/v1/entries/%C3%28', status: 400, code: 'invalid_request' },
  { name: 'an unknown route', method: 'GET', url: '/api/v1/entrees', status: 404, code: 'not_found' },
  { name: 'an unknown method on entries', method: 'PUT', url: '/api/v1/entries/{id}', status: 404, code: 'not_found' },
  // Invited check bodies
  { name: 'malformed JSON', method: 'POST', url: '/api/v1/invited', contentType: 'application/json', body: '{"email":', status: 400, code: 'invalid_request' },
  { name: 'an empty JSON body', method: 'POST', url: '/api/v1/invited', contentType: 'application/json', body: '', status: 400, code: 'invalid_request' },
  { name: 'a JSON array', method: 'POST', url: '/api/v1/invited', contentType: 'application/json', body: '[]', status: 400, code: 'invalid_request' },
  { name: 'JSON null', method: 'POST', url: '/api/v1/invited', contentType: 'application/json', body: 'null', status: 400, code: 'invalid_request' },
  { name: 'email missing', method: 'POST', url: '/api/v1/invited', contentType: 'application/json', body: json({}), status: 400, code: 'invalid_email' },
  { name: 'email as a number', method: 'POST', url: '/api/v1/invited', contentType: 'application/json', body: json({ email: 1 }), status: 400, code: 'invalid_email' },
  { name: 'email as an array', method: 'POST', url: '/api/v1/invited', contentType: 'application/json', body: json({ email: ['a@b.co'] }), status: 400, code: 'invalid_email' },
  { name: 'email as null', method: 'POST', url: '/api/v1/invited', contentType: 'application/json', body: json({ email: null }), status: 400, code: 'invalid_email' },
  { name: 'a 300-character email', method: 'POST', url: '/api/v1/invited', contentType: 'application/json', body: json({ email: `${'a'.repeat(290)}@example.com` }), status: 400, code: 'invalid_email' },
  { name: 'text/plain instead of JSON', method: 'POST', url: '/api/v1/invited', contentType: 'text/plain', body: json({ email: 'a@example.com' }), status: 400, code: 'invalid_request' },
  { name: 'a form instead of JSON', method: 'POST', url: '/api/v1/invited', contentType: 'application/x-www-form-urlencoded', body: 'email=a%40example.com', status: 400, code: 'invalid_request' },
  { name: 'multipart instead of JSON', method: 'POST', url: '/api/v1/invited', contentType: 'multipart/form-data; boundary=x', body: '--x\r\n\r\n--x--', status: 400, code: 'invalid_request' },
  { name: 'a body over 64 KiB', method: 'POST', url: '/api/v1/invited', contentType: 'application/json', body: json({ email: big }), status: 400, code: 'invalid_request' },
  { name: 'invalid UTF-8 in JSON', method: 'POST', url: '/api/v1/invited', contentType: 'application/json', body: Buffer.from([0x7b, 0x22, 0x65, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]), status: 400, code: 'invalid_email' },
  { name: 'GET invited without email', method: 'GET', url: '/api/v1/invited', status: 400, code: 'invalid_email' },
  { name: 'GET invited with email twice', method: 'GET', url: '/api/v1/invited?email=a%40example.com&email=b%40example.com', status: 400, code: 'invalid_email' },
  // Invitations
  { name: 'invite-next without count', method: 'POST', url: '/api/v1/entries/invite-next', contentType: 'application/json', body: json({}), status: 400, code: 'invalid_request' },
  { name: 'invite-next count 0', method: 'POST', url: '/api/v1/entries/invite-next', contentType: 'application/json', body: json({ count: 0 }), status: 400, code: 'invalid_request' },
  { name: 'invite-next count 1001', method: 'POST', url: '/api/v1/entries/invite-next', contentType: 'application/json', body: json({ count: 1001 }), status: 400, code: 'invalid_request' },
  { name: 'invite-next count as a string', method: 'POST', url: '/api/v1/entries/invite-next', contentType: 'application/json', body: json({ count: '5' }), status: 400, code: 'invalid_request' },
  { name: 'invite-next count 2.5', method: 'POST', url: '/api/v1/entries/invite-next', contentType: 'application/json', body: json({ count: 2.5 }), status: 400, code: 'invalid_request' },
  { name: 'move-up without places', method: 'POST', url: '/api/v1/entries/{id}/move-up', contentType: 'application/json', body: json({}), status: 400, code: 'invalid_request' },
  { name: 'verify without token', method: 'POST', url: '/api/v1/invites/verify', contentType: 'application/json', body: json({}), status: 400, code: 'invalid_request' },
  { name: 'verify with a numeric token', method: 'POST', url: '/api/v1/invites/verify', contentType: 'application/json', body: json({ token: 12345 }), status: 400, code: 'invalid_request' },
  { name: 'redeem with an empty token', method: 'POST', url: '/api/v1/invites/redeem', contentType: 'application/json', body: json({ token: '' }), status: 400, code: 'invalid_request' },
  { name: 'redeem with malformed JSON', method: 'POST', url: '/api/v1/invites/redeem', contentType: 'application/json', body: '{"token"', status: 400, code: 'invalid_request' },
  { name: 'invite an unknown id', method: 'POST', url: '/api/v1/entries/ent_nothing/invite', status: 404, code: 'not_found' },
  { name: 'reinvite a confirmed entry', method: 'POST', url: '/api/v1/entries/{id}/reinvite', status: 409, code: 'not_invited' },
  // Public sign-up
  { name: 'sign-up without a key', method: 'POST', url: '/public/v1/signups', key: 'none', contentType: 'application/json', body: json({ email: 'new@example.com' }), status: 401, code: 'unauthorized' },
  { name: 'sign-up with a secret key', method: 'POST', url: '/public/v1/signups', key: 'none', contentType: 'application/json', body: 'SECRET_BODY', status: 401, code: 'unauthorized' },
  { name: 'sign-up with a numeric key', method: 'POST', url: '/public/v1/signups', key: 'none', contentType: 'application/json', body: json({ key: 42, email: 'new@example.com' }), status: 401, code: 'unauthorized' },
  { name: 'sign-up without an email', method: 'POST', url: '/public/v1/signups', key: 'none', contentType: 'application/json', body: 'PK_BODY:{}', status: 400, code: 'invalid_email' },
  { name: 'sign-up with an object as email', method: 'POST', url: '/public/v1/signups', key: 'none', contentType: 'application/json', body: 'PK_BODY:{"email":{"$ne":null}}', status: 400, code: 'invalid_email' },
  { name: 'sign-up with an address with spaces inside', method: 'POST', url: '/public/v1/signups', key: 'none', contentType: 'application/json', body: 'PK_BODY:{"email":"a b@example.com"}', status: 400, code: 'invalid_email' },
  { name: 'sign-up with malformed JSON', method: 'POST', url: '/public/v1/signups', key: 'none', contentType: 'application/json', body: '{"key":', status: 400, code: 'invalid_request' },
  { name: 'sign-up as text/plain', method: 'POST', url: '/public/v1/signups', key: 'none', contentType: 'text/plain', body: 'hello', status: 400, code: 'invalid_request' },
  { name: 'form sign-up with a bad email', method: 'POST', url: '/public/v1/signups', key: 'none', contentType: 'application/x-www-form-urlencoded', body: 'PK_FORM:email=nope', status: 400 },
  // Hosted pages
  { name: 'an unknown confirm token (GET)', method: 'GET', url: '/confirm/not-a-token', key: 'none', status: 404 },
  { name: 'an unknown confirm token (POST)', method: 'POST', url: '/confirm/not-a-token', key: 'none', status: 404 },
  { name: 'a 4 KB confirm token', method: 'POST', url: `/confirm/${'t'.repeat(4096)}`, key: 'none', status: 404 },
  { name: 'an unknown unsubscribe token (POST)', method: 'POST', url: '/unsubscribe/%00abc', key: 'none', status: 404 },
  { name: 'an unsubscribe token of invalid UTF-8', method: 'POST', url: '/unsubscribe/%FF', key: 'none', status: 400 },
  { name: 'the unsubscribe token as a confirm token', method: 'POST', url: '/confirm/{unsubscribe}', key: 'none', status: 404 },
  { name: 'the confirm token as an unsubscribe token', method: 'POST', url: '/unsubscribe/{confirm}', key: 'none', status: 404 },
  { name: 'the sign-up page of a secret key', method: 'GET', url: '/w/SECRET', key: 'none', status: 404 },
];

describe('bad input', () => {
  let stack: Stack;
  let product: Product;
  let values: Record<string, string>;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api', 'mailer'], env: { RATE_LIMIT_SIGNUP: '1000/1m' } });
    product = await stack.createProduct();
    const confirmed = await joinLine(stack, product.keys.test.publishable, 'confirmed@example.com');
    await signUp(stack, product.keys.test.publishable, 'pending@example.com');
    const pendingMail = await stack.mail.waitFor('pending@example.com');
    values = {
      id: confirmed.id,
      confirm: (await confirmPath(stack, 'pending@example.com')).split('/').pop()!,
      unsubscribe: new URL(linkIn(pendingMail, `${stack.config.PUBLIC_BASE_URL}/unsubscribe/`)).pathname.split('/').pop()!,
    };
  });
  afterAll(() => stack.stop());

  /** Everything a bad request could have changed. */
  async function snapshot(): Promise<unknown> {
    const counts = await stack.db.query(
      `SELECT (SELECT count(*) FROM products) AS products, (SELECT count(*) FROM api_keys) AS api_keys,
              (SELECT count(*) FROM events) AS events, (SELECT count(*) FROM outbox) AS outbox,
              (SELECT count(*) FROM entry_tokens) AS entry_tokens`,
    );
    const entries = await stack.db.query('SELECT * FROM entries ORDER BY id');
    return { counts, entries };
  }

  it(`the table holds at least 30 rows (${ROWS.length})`, () => expect(ROWS.length).toBeGreaterThanOrEqual(30));

  it.each(ROWS.map((row) => [row.name, row] as const))('%s', async (_name, row) => {
    const before = await snapshot();
    const headers: Record<string, string> = {};
    const key = row.key ?? 'secret';
    if (key === 'secret') headers.authorization = `Bearer ${product.keys.test.secret}`;
    else if (key === 'publishable') headers.authorization = `Bearer ${product.keys.test.publishable}`;
    else if (key !== 'none') headers.authorization = key;
    if (row.contentType) headers['content-type'] = row.contentType;
    let payload = row.body;
    if (typeof payload === 'string') {
      const pk = product.keys.test.publishable;
      if (payload === 'SECRET_BODY') payload = json({ key: product.keys.test.secret, email: 'new@example.com' });
      else if (payload.startsWith('PK_BODY:')) payload = json({ key: pk, ...JSON.parse(payload.slice(8)) });
      else if (payload.startsWith('PK_FORM:')) payload = `key=${encodeURIComponent(pk)}&${payload.slice(8)}`;
    }
    const url = row.url.replace(/\{(\w+)\}/g, (_, name: string) => values[name]).replace('/w/SECRET', `/w/${product.keys.test.secret}`);

    const response = await stack.request({ method: row.method, url, headers, payload });

    expect(response.status).toBe(row.status);
    if (row.code) expect(response.json()).toEqual({ error: { code: row.code, message: expect.any(String), ...(response.json().error.param ? { param: expect.any(String) } : {}) } });
    else if (response.headers['content-type']?.toString().includes('json')) expect(response.json().error.code).toMatch(/^[a-z_]+$/);
    expect(await snapshot()).toEqual(before);
  });
});
