import { EntryRecord, newId } from '@app/shared';
import { bearer, events, joinLine, signUp } from './support/flows';
import { Product, Stack } from './support/stack';

describe('entries API', () => {
  let stack: Stack;
  let product: Product;
  let other: Product;
  let sk: string;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api', 'mailer'], env: { RATE_LIMIT_SIGNUP: '1000/1m' } });
    product = await stack.createProduct();
    other = await stack.createProduct({ name: 'Other' });
    sk = product.keys.test.secret;
  });
  afterAll(() => stack.stop());

  const get = (url: string, key = sk) => stack.request({ method: 'GET', url, headers: bearer(key) });

  /** Entries written straight into the table, for listings that need many. */
  async function seed(count: number, scope: { productId: string; mode: 'live' | 'test' }, start = Date.UTC(2026, 0, 1)) {
    const rows = Array.from({ length: count }, (_, i) => ({
      id: newId('ent'),
      productId: scope.productId,
      mode: scope.mode,
      email: `seed-${scope.mode}-${i}-${Math.random().toString(36).slice(2)}@example.com`,
      state: 'pending' as const,
      // Every third entry shares its createdAt with the next, so the walk must break ties by id.
      createdAt: new Date(start + Math.floor(i / 2) * 1000),
      referrals: 0,
      movedUp: 0,
    }));
    await stack.db.getRepository(EntryRecord).insert(rows);
    return rows;
  }

  it('a walk over 250 entries with limit 7 returns each entry once, newest first', async () => {
    const rows = await seed(250, { productId: product.id, mode: 'live' });
    const seen: { id: string; createdAt: string }[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const response = await get(`/api/v1/entries?limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, product.keys.live.secret);
      expect(response.status).toBe(200);
      const page = response.json();
      expect(page.data.length).toBeLessThanOrEqual(7);
      seen.push(...page.data);
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(36);
    expect(seen).toHaveLength(250);
    expect(new Set(seen.map((entry) => entry.id)).size).toBe(250);
    const expected = [...rows].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1));
    expect(seen.map((entry) => entry.id)).toEqual(expected.map((entry) => entry.id));
  });

  it('the default page holds 20 entries and the last page has nextCursor null', async () => {
    const first = (await get('/api/v1/entries', product.keys.live.secret)).json();
    expect(first.data).toHaveLength(20);
    expect(typeof first.nextCursor).toBe('string');
    const all = (await get('/api/v1/entries?limit=100&state=pending', product.keys.live.secret)).json();
    expect(all.data).toHaveLength(100);
  });

  it('a changed, made-up or foreign cursor is 400 invalid_cursor', async () => {
    const page = (await get('/api/v1/entries?limit=3', product.keys.live.secret)).json();
    const cursor: string = page.nextCursor;
    const [payload, signature] = cursor.split('.');
    const moved = Buffer.from(JSON.stringify([0, 'ent_x'])).toString('base64url');
    const cases = [
      `${moved}.${signature}`,
      `${payload}.${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`,
      'made-up',
      `${cursor}x`,
    ];
    for (const bad of cases) {
      const response = await get(`/api/v1/entries?cursor=${encodeURIComponent(bad)}`, product.keys.live.secret);
      expect(response.status).toBe(400);
      expect(response.json().error.code).toBe('invalid_cursor');
    }
    // Issued for another listing: the other mode's key, another filter.
    expect((await get(`/api/v1/entries?cursor=${encodeURIComponent(cursor)}`, product.keys.test.secret)).status).toBe(400);
    expect((await get(`/api/v1/entries?state=confirmed&cursor=${encodeURIComponent(cursor)}`, product.keys.live.secret)).json().error.code).toBe(
      'invalid_cursor',
    );
  });

  it('filters by state and by email (trimmed and lowercased); a bad email is 400 invalid_email', async () => {
    const pk = product.keys.test.publishable;
    const confirmed = await joinLine(stack, pk, 'filter-confirmed@example.com');
    await signUp(stack, pk, 'filter-pending@example.com');
    const byState = (await get('/api/v1/entries?state=confirmed')).json();
    expect(byState.data.map((entry: { id: string }) => entry.id)).toEqual([confirmed.id]);
    const byEmail = (await get(`/api/v1/entries?email=${encodeURIComponent('  Filter-Confirmed@EXAMPLE.com ')}`)).json();
    expect(byEmail).toEqual({ data: [expect.objectContaining({ id: confirmed.id })], nextCursor: null });
    expect((await get('/api/v1/entries?email=nobody@example.com')).json()).toEqual({ data: [], nextCursor: null });
    const bad = await get('/api/v1/entries?email=nope');
    expect(bad.status).toBe(400);
    expect(bad.json().error.code).toBe('invalid_email');
  });

  it('reads one entry with every field of the Entry resource', async () => {
    const record = await stack.db.getRepository(EntryRecord).findOneByOrFail({ email: 'filter-confirmed@example.com' });
    const response = await get(`/api/v1/entries/${record.id}`);
    expect(response.status).toBe(200);
    expect(response.json()).toEqual({
      id: record.id,
      email: 'filter-confirmed@example.com',
      state: 'confirmed',
      createdAt: record.createdAt.toISOString(),
      confirmedAt: record.confirmedAt!.toISOString(),
      invitedAt: null,
      redeemedAt: null,
      referralCode: record.referralCode,
      referrals: 0,
    });
    expect(response.json().createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('a key sees nothing of another product or of the other mode', async () => {
    const record = await stack.db.getRepository(EntryRecord).findOneByOrFail({ email: 'filter-confirmed@example.com' });
    for (const key of [product.keys.live.secret, other.keys.test.secret, other.keys.live.secret]) {
      expect((await get(`/api/v1/entries/${record.id}`, key)).status).toBe(404);
      expect((await stack.request({ method: 'DELETE', url: `/api/v1/entries/${record.id}`, headers: bearer(key) })).status).toBe(404);
      expect((await get('/api/v1/entries?email=filter-confirmed@example.com', key)).json().data).toEqual([]);
    }
    expect((await get('/api/v1/entries', other.keys.test.secret)).json()).toEqual({ data: [], nextCursor: null });
    expect(await stack.db.getRepository(EntryRecord).existsBy({ id: record.id })).toBe(true);
  });

  it('the invited check answers false for unknown, pending and confirmed addresses, true for invited and redeemed', async () => {
    const invited = await joinLine(stack, product.keys.test.publishable, 'invited@example.com');
    await stack.db.getRepository(EntryRecord).update({ id: invited.id }, { state: 'invited', invitedAt: new Date() });
    const redeemed = await joinLine(stack, product.keys.test.publishable, 'redeemed@example.com');
    await stack.db.getRepository(EntryRecord).update({ id: redeemed.id }, { state: 'redeemed', invitedAt: new Date(), redeemedAt: new Date() });
    const cases: [string, boolean][] = [
      ['nobody@example.com', false],
      ['filter-pending@example.com', false],
      ['filter-confirmed@example.com', false],
      [' Invited@Example.com ', true],
      ['redeemed@example.com', true],
    ];
    for (const [email, invitedAnswer] of cases) {
      const post = await stack.request({ method: 'POST', url: '/api/v1/invited', headers: bearer(sk), body: { email } });
      expect({ email, status: post.status, body: post.json() }).toEqual({ email, status: 200, body: { invited: invitedAnswer } });
      const query = await get(`/api/v1/invited?email=${encodeURIComponent(email)}`);
      expect({ email, status: query.status, body: query.json() }).toEqual({ email, status: 200, body: { invited: invitedAnswer } });
    }
    // Another product's or mode's key: not invited.
    for (const key of [product.keys.live.secret, other.keys.test.secret]) {
      const post = await stack.request({ method: 'POST', url: '/api/v1/invited', headers: bearer(key), body: { email: 'invited@example.com' } });
      expect(post.json()).toEqual({ invited: false });
    }
    for (const body of [{ email: 'not-an-address' }, {}, { email: 42 }]) {
      const response = await stack.request({ method: 'POST', url: '/api/v1/invited', headers: bearer(sk), body });
      expect(response.status).toBe(400);
      expect(response.json().error.code).toBe('invalid_email');
    }
    expect((await get('/api/v1/invited')).json().error.code).toBe('invalid_email');
  });

  it('delete answers 204 without a body, removes the entry and its codes, and emits entry.deleted with the entry as it was', async () => {
    const record = await joinLine(stack, product.keys.test.publishable, 'delete-me@example.com');
    const response = await stack.request({ method: 'DELETE', url: `/api/v1/entries/${record.id}`, headers: bearer(sk) });
    expect(response.status).toBe(204);
    expect(response.text).toBe('');
    expect(await stack.db.getRepository(EntryRecord).existsBy({ id: record.id })).toBe(false);
    expect(await stack.db.query('SELECT 1 FROM entry_tokens WHERE entry_id = $1', [record.id])).toEqual([]);
    const deleted = (await events(stack)).filter((event) => event.type === 'entry.deleted');
    expect(deleted).toHaveLength(1);
    expect(deleted[0]).toMatchObject({ mode: 'test', productId: product.id, data: { entry: { id: record.id, state: 'confirmed', email: 'delete-me@example.com' } } });
    expect((await get(`/api/v1/entries/${record.id}`)).status).toBe(404);
    const again = await stack.request({ method: 'DELETE', url: `/api/v1/entries/${record.id}`, headers: bearer(sk) });
    expect(again.status).toBe(404);
    expect(again.json()).toEqual({ error: { code: 'not_found', message: expect.any(String), param: 'id' } });
  });

  it('a missing, unknown or revoked key is 401 unauthorized', async () => {
    const { KeysService } = await import('../apps/api/src/keys/keys.service');
    const pair = await stack.api.get(KeysService).createPair(product.id, 'test');
    expect((await get('/api/v1/entries', pair.secret)).status).toBe(200);
    await stack.api.get(KeysService).revoke(pair.secret);
    for (const headers of [{}, bearer(pair.secret), bearer('sk_test_unknown'), bearer(product.keys.test.publishable), { authorization: sk }]) {
      const response = await stack.request({ method: 'GET', url: '/api/v1/entries', headers });
      expect(response.status).toBe(401);
      expect(response.json().error.code).toBe('unauthorized');
    }
  });

  it('requests that miss the key cache together look the key up once', async () => {
    const { KeysService } = await import('../apps/api/src/keys/keys.service');
    const { ApiKey } = await import('@app/shared');
    const { getDataSourceToken } = await import('@nestjs/typeorm');
    const pair = await stack.api.get(KeysService).createPair(product.id, 'test');
    const repositories = jest.spyOn(stack.api.get(getDataSourceToken()), 'getRepository');
    try {
      const answers = await Promise.all(Array.from({ length: 20 }, () => get('/api/v1/entries', pair.secret)));
      expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(200));
      expect(repositories.mock.calls.filter(([entity]) => entity === ApiKey)).toHaveLength(1);
    } finally {
      repositories.mockRestore();
    }
  });

  it('unknown routes are 404 not_found in the error body', async () => {
    for (const url of ['/api/v1/nothing', '/api/v2/entries', '/']) {
      const response = await get(url);
      expect(response.status).toBe(404);
      expect(response.json().error.code).toBe('not_found');
    }
  });

  it('health: /healthz and /readyz answer 200 while PostgreSQL and Redis are up', async () => {
    expect((await stack.request({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' });
    expect((await stack.request({ method: 'GET', url: '/readyz' })).json()).toEqual({ status: 'ok', checks: { database: 'ok', redis: 'ok' } });
  });
});
