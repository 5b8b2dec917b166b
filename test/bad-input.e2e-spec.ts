import { EntryRecord, QueueName } from '@app/shared';
import { KeysService } from '../apps/api/src/keys/keys.service';
import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { WebhooksService } from '../apps/api/src/webhooks/webhooks.service';
import { csrfIn, PASSWORD, signIn } from './support/dashboard';
import { confirmPath, joinLine, signUp } from './support/flows';
import { linkIn } from './support/smtp-sink';
import { Product, Stack } from './support/stack';
import { waitFor } from './support/wait';
import { Auth, D, ENTRY, FORM, json, JSON_TYPE, Row, Values } from './support/bad-input-row';
import { API_ROWS } from './support/bad-input-api-rows';
import { PAGE_ROWS } from './support/bad-input-page-rows';

/**
 * Bad input, one row per request: each must get its clear 4xx (never a 5xx), JSON endpoints the error
 * body of DESIGN.md §3 with the spec's code, hosted pages an HTML page, and nothing may change.
 */

const ROWS: Row[] = [...API_ROWS, ...PAGE_ROWS];

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
