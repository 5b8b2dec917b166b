import { EntryRecord, LoginHook, SecretBox } from '@app/shared';
import { createHmac, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Webhook } from 'standardwebhooks';
import { LoginHooksService, NewLoginHook } from '../apps/api/src/login-hooks/login-hooks.service';
import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { form, PASSWORD, signIn } from './support/dashboard';
import { events, joinLine } from './support/flows';
import { codeIn, InvitationApi, invitationStack, invitationsTo, seedLine } from './support/invitations';
import { Product, Stack } from './support/stack';
import { TcpProxy } from './support/tcp-proxy';

/** The payload Supabase Auth posts to a Before User Created hook, as its documentation shows it. */
function supabasePayload(email: string, userMetadata: Record<string, unknown> = {}) {
  return {
    metadata: { uuid: randomUUID(), time: new Date().toISOString(), name: 'before-user-created', ip_address: '127.0.0.1' },
    user: {
      id: randomUUID(),
      aud: 'authenticated',
      role: '',
      email,
      phone: '',
      app_metadata: { provider: 'email', providers: ['email'] },
      user_metadata: userMetadata,
      identities: [],
      created_at: '0001-01-01T00:00:00Z',
      updated_at: '0001-01-01T00:00:00Z',
      is_anonymous: false,
    },
  };
}

/** Standard Webhooks headers as Supabase Auth sends them, signed with the standardwebhooks package. */
function signed(secret: string, body: string, at = new Date()): Record<string, string> {
  const id = randomUUID();
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    // Supabase's secret is "v1,whsec_<base64>"; the library takes the part after "v1,".
    'webhook-signature': new Webhook(secret.replace(/^v1,/, '')).sign(id, at, body),
  };
}

/** The signature built by hand, as the Standard Webhooks specification and Supabase's docs describe it. */
function handSigned(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^v1,whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

const REFUSED_NOT_INVITED = { error: { http_code: 403, message: 'Sign-up is by invitation only, and this email address has not been invited.' } };
const REFUSED_UNAVAILABLE = { error: { http_code: 503, message: 'Sign-up cannot be checked right now. Please try again in a moment.' } };

function kratosRefusal(id: number, reason: string, text: string) {
  return { messages: [{ instance_ptr: '#/traits/email', messages: [{ id, text, type: 'error', context: { reason } }] }] };
}

// First in the file: Nest's Logger writes through the app created last in this process, and this describe reads the api's logs.
describe('sign-up hooks when the database is unreachable or slow', () => {
  let stack: Stack;
  let proxy: TcpProxy;
  let product: Product;
  const hooks: Record<'closed' | 'open' | 'unread', NewLoginHook> = {} as never;

  beforeAll(async () => {
    // The api app reaches PostgreSQL through a proxy of this test's own; the test's connection goes straight.
    stack = await Stack.start({ apps: [], env: { LOG_LEVEL: 'trace' } });
    const url = new URL(stack.config.DATABASE_URL);
    proxy = await TcpProxy.start({ host: url.hostname, port: Number(url.port || 5432) });
    stack.config = { ...stack.config, DATABASE_URL: proxy.through(stack.config.DATABASE_URL) };
    await stack.startApp('api');
    product = await stack.createProduct();
    const [entry] = await seedLine(stack, { productId: product.id, mode: 'live' }, 1, 'invited');
    await stack.db.query(`UPDATE entries SET state = 'invited', invited_at = now() WHERE id = $1`, [entry.id]);
    const service = stack.api.get(LoginHooksService);
    const scope = { productId: product.id, mode: 'live' } as const;
    hooks.closed = await service.create(scope, { provider: 'supabase', failOpen: false });
    hooks.open = await service.create(scope, { provider: 'kratos', failOpen: true });
    hooks.unread = await service.create(scope, { provider: 'supabase', failOpen: true });
  });
  afterAll(async () => {
    proxy.open();
    await stack.stop();
    await proxy.stop();
  });

  const invitedAddress = 'invited-0@example.com';
  async function call(hook: NewLoginHook, email: string) {
    const body = hook.provider === 'supabase' ? JSON.stringify(supabasePayload(email)) : JSON.stringify({ email });
    const headers = hook.provider === 'supabase' ? signed(hook.secret, body) : { authorization: `Bearer ${hook.secret}` };
    const started = performance.now();
    const response = await stack.request({ method: 'POST', url: new URL(hook.url).pathname, headers: { 'content-type': 'application/json', ...headers }, payload: body });
    return { status: response.status, body: response.json(), ms: performance.now() - started };
  }

  it('while it answers, both hooks decide as usual', async () => {
    expect(await call(hooks.closed, invitedAddress)).toMatchObject({ status: 200, body: {} });
    expect(await call(hooks.closed, 'stranger@example.com')).toMatchObject({ status: 200, body: REFUSED_NOT_INVITED });
    expect(await call(hooks.open, invitedAddress)).toMatchObject({ status: 200, body: {} });
    expect(await call(hooks.open, 'stranger@example.com')).toMatchObject({ status: 403 });
  });

  for (const [outage, cause] of [
    ['unreachable', (p: TcpProxy) => p.cut()],
    ['slow', (p: TcpProxy) => p.hold()],
  ] as const) {
    it(`${outage}: within a second, a fail-closed hook refuses even an invited address, a fail-open one lets anyone through, and a hook this process never read refuses`, async () => {
      cause(proxy);
      try {
        const closed = await call(hooks.closed, invitedAddress);
        expect(closed).toMatchObject({ status: 200, body: REFUSED_UNAVAILABLE });
        const open = await call(hooks.open, 'stranger@example.com');
        expect(open).toMatchObject({ status: 200, body: {} });
        // Without its secret no call can be trusted, so nothing can be let through.
        const unread = await call(hooks.unread, invitedAddress);
        expect(unread).toMatchObject({ status: 200, body: REFUSED_UNAVAILABLE });
        for (const { ms } of [closed, open, unread]) expect(ms).toBeLessThan(1000);
        // A call without the secret is still refused, and a wrong hook id still unknown.
        expect((await call({ ...hooks.open, secret: 'lhsec_wrong' }, invitedAddress)).status).toBe(401);
      } finally {
        proxy.open();
      }
      const back = await call(hooks.closed, invitedAddress);
      expect(back).toMatchObject({ status: 200, body: {} });
    });
  }

  it('logs each decision it could not make, with the hook’s id and never a secret or an address', () => {
    const log = stack.logs.join('');
    expect(log).toContain(`Sign-up hook ${hooks.closed.id} could not decide`);
    expect(log).toContain('refused (fail closed)');
    expect(log).toContain('let through (fail open)');
    for (const secret of [hooks.closed.secret, hooks.open.secret, hooks.unread.secret, hooks.closed.secret.slice(9), invitedAddress, 'stranger@example.com']) {
      expect(log).not.toContain(secret);
    }
  });
});

describe(LoginHooksService.name, () => {
  let stack: Stack;
  let product: Product;
  let pk: string;
  let client: InvitationApi;
  let supabase: NewLoginHook;
  let kratos: NewLoginHook;

  beforeAll(async () => {
    ({ stack, product, pk, client } = await invitationStack());
    const hooks = stack.api.get(LoginHooksService);
    supabase = await hooks.create({ productId: product.id, mode: 'test' }, { provider: 'supabase', failOpen: false });
    kratos = await hooks.create({ productId: product.id, mode: 'test' }, { provider: 'kratos', failOpen: false });
  });
  afterAll(() => stack.stop());

  const path = (hook: NewLoginHook) => new URL(hook.url).pathname;
  const entryOf = (email: string) => stack.db.getRepository(EntryRecord).findOneByOrFail({ productId: product.id, mode: 'test', email });
  const redeemedEvents = async (email: string) => (await events(stack)).filter((event) => event.type === 'entry.redeemed' && event.data.entry.email === email);

  /** An invited entry of the test mode, and the code of its invitation mail. */
  async function invited(email: string): Promise<string> {
    const entry = await joinLine(stack, pk, email);
    expect((await client.invite(entry.id)).status).toBe(200);
    return codeIn(invitationsTo(stack, email)[0]);
  }

  const callSupabase = (payload: unknown, hook = supabase, headers?: (body: string) => Record<string, string>) => {
    const body = JSON.stringify(payload);
    return stack.request({ method: 'POST', url: path(hook), headers: { 'content-type': 'application/json', ...(headers ?? ((text) => signed(hook.secret, text)))(body) }, payload: body });
  };
  const callKratos = (body: unknown, hook = kratos, authorization = `Bearer ${hook.secret}`) =>
    stack.request({ method: 'POST', url: path(hook), headers: { authorization }, body });

  describe('Supabase Auth', () => {
    it('lets an invited address through with 200 {} and refuses an unknown one with Supabase’s error object', async () => {
      await invited('ada@example.com');
      const allowed = await callSupabase(supabasePayload('ada@example.com'));
      expect([allowed.status, allowed.json()]).toEqual([200, {}]);
      expect(allowed.headers['content-type']).toMatch(/^application\/json/);
      // Supabase Auth lowercases addresses; case and spaces do not matter here either.
      expect((await callSupabase(supabasePayload(' ADA@example.com'))).json()).toEqual({});

      const refused = await callSupabase(supabasePayload('stranger@example.com'));
      // Supabase Auth reads a hook's body only on 200: the error object in it refuses the sign-up and reaches the app.
      expect([refused.status, refused.json()]).toEqual([200, REFUSED_NOT_INVITED]);
      const pending = await stack.request({ method: 'POST', url: '/public/v1/signups', body: { key: pk, email: 'pending@example.com' } });
      expect(pending.status).toBe(202);
      expect((await callSupabase(supabasePayload('pending@example.com'))).json()).toEqual(REFUSED_NOT_INVITED);
    });

    it('takes a signature built by hand as the docs describe it, among others, as Supabase sends one per secret', async () => {
      await invited('grace@example.com');
      const body = JSON.stringify(supabasePayload('grace@example.com'));
      const id = randomUUID();
      const timestamp = Math.floor(Date.now() / 1000);
      const other = `v1,whsec_${Buffer.alloc(32, 7).toString('base64')}`;
      for (const signature of [handSigned(supabase.secret, id, timestamp, body), `${handSigned(other, id, timestamp, body)}, ${handSigned(supabase.secret, id, timestamp, body)}`]) {
        const response = await stack.request({
          method: 'POST',
          url: path(supabase),
          headers: { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signature },
          payload: body,
        });
        expect([response.status, response.json()]).toEqual([200, {}]);
      }
    });

    it('a sign-up with the invite code of its own address redeems it: redeemed once, one entry.redeemed, and still allowed when Supabase calls again', async () => {
      const code = await invited('hedy@example.com');
      const first = await callSupabase(supabasePayload('hedy@example.com', { invite: code, name: 'Hedy' }));
      expect([first.status, first.json()]).toEqual([200, {}]);
      expect(await entryOf('hedy@example.com')).toMatchObject({ state: 'redeemed', redeemedAt: expect.any(Date) });
      expect(await redeemedEvents('hedy@example.com')).toHaveLength(1);
      expect((await client.verify(code)).json()).toEqual({ valid: false });

      // Supabase Auth retries a hook that timed out: the code is spent, and a redeemed address stays invited.
      expect((await callSupabase(supabasePayload('hedy@example.com', { invite: code }))).json()).toEqual({});
      expect(await redeemedEvents('hedy@example.com')).toHaveLength(1);
    });

    it('a redeemed address is let through; made-up codes and codes that are no string change nothing', async () => {
      const code = await invited('redeemed@example.com');
      expect((await client.redeem(code)).json()).toEqual({ valid: true, email: 'redeemed@example.com' });
      expect((await callSupabase(supabasePayload('redeemed@example.com'))).json()).toEqual({});
      for (const invite of ['made-up-code', 42, { code }, 'x'.repeat(600)]) {
        expect((await callSupabase(supabasePayload('redeemed@example.com', { invite }))).json()).toEqual({});
        expect((await callSupabase(supabasePayload('stranger@example.com', { invite }))).json()).toEqual(REFUSED_NOT_INVITED);
      }
    });

    it('a code for another address is not spent: it lets nobody else in, and its own address still redeems it', async () => {
      const code = await invited('owner@example.com');
      expect((await callSupabase(supabasePayload('thief@example.com', { invite: code }))).json()).toEqual(REFUSED_NOT_INVITED);
      await invited('friend@example.com');
      expect((await callSupabase(supabasePayload('friend@example.com', { invite: code }))).json()).toEqual({});
      expect(await entryOf('owner@example.com')).toMatchObject({ state: 'invited', redeemedAt: null });
      expect(await entryOf('friend@example.com')).toMatchObject({ state: 'invited', redeemedAt: null });
      expect((await client.verify(code)).json()).toEqual({ valid: true, email: 'owner@example.com' });
      expect(await redeemedEvents('owner@example.com')).toHaveLength(0);
    });

    it('a sign-up without an address (phone, anonymous) is refused in words', async () => {
      const response = await callSupabase({ ...supabasePayload(''), user: { ...supabasePayload('').user, phone: '15555550100' } });
      expect(response.json()).toEqual({ error: { http_code: 403, message: 'Sign-up is by invitation only: sign up with the email address your invitation was sent to.' } });
    });

    it('refuses calls it cannot trust with a 4xx and changes nothing: bad or missing signature, stale or future timestamp, unknown or revoked hook', async () => {
      const code = await invited('careful@example.com');
      const payload = supabasePayload('careful@example.com', { invite: code });
      const wrongSecret = `v1,whsec_${Buffer.alloc(32, 1).toString('base64')}`;
      const sixMinutes = 6 * 60_000;
      const cases: [string, (body: string) => Record<string, string>][] = [
        ['another secret', (body) => signed(wrongSecret, body)],
        ['no signature', () => ({})],
        ['a signature over another body', () => signed(supabase.secret, JSON.stringify(supabasePayload('careful@example.com')))],
        ['a stale timestamp', (body) => signed(supabase.secret, body, new Date(Date.now() - sixMinutes))],
        ['a timestamp in the future', (body) => signed(supabase.secret, body, new Date(Date.now() + sixMinutes))],
        ['the Kratos hook’s secret as a bearer token', () => ({ authorization: `Bearer ${kratos.secret}` })],
      ];
      for (const [what, headers] of cases) {
        const response = await callSupabase(payload, supabase, headers);
        expect([what, response.status, response.json().error.code]).toEqual([what, 401, 'unauthorized']);
      }
      const unknown = { ...supabase, url: supabase.url.replace(/lh_[0-9a-f]+$/, 'lh_000000000000000000000000') };
      expect((await callSupabase(payload, unknown)).status).toBe(404);
      expect((await callSupabase(payload, { ...supabase, url: `${supabase.url}x` })).status).toBe(404);
      // A Kratos hook is not a Supabase hook.
      const asKratos = await stack.request({ method: 'POST', url: path(kratos).replace('/kratos/', '/supabase/'), headers: { 'content-type': 'application/json', ...signed(supabase.secret, '{}') }, payload: '{}' });
      expect(asKratos.status).toBe(404);

      const revoked = await stack.api.get(LoginHooksService).create({ productId: product.id, mode: 'test' }, { provider: 'supabase', failOpen: true });
      expect((await callSupabase(supabasePayload('careful@example.com'), revoked)).json()).toEqual({});
      expect(await stack.api.get(LoginHooksService).revoke({ productId: product.id, mode: 'test' }, revoked.id)).toBe(true);
      const afterRevoke = await callSupabase(payload, revoked);
      expect([afterRevoke.status, afterRevoke.json().error.code]).toEqual([404, 'not_found']);

      expect(await entryOf('careful@example.com')).toMatchObject({ state: 'invited' });
      expect((await client.verify(code)).json()).toEqual({ valid: true, email: 'careful@example.com' });
    });

    it('answers malformed bodies with 400 after checking the signature, and changes nothing', async () => {
      const code = await invited('malformed@example.com');
      const bodies = [
        'not json',
        '{"metadata":{"name":"before-user-created"}}',
        JSON.stringify({ ...supabasePayload('malformed@example.com', { invite: code }), metadata: { name: 'send-email' } }),
        JSON.stringify({ metadata: { name: 'before-user-created' }, user: { email: 42, user_metadata: { invite: code } } }),
        '[]',
      ];
      for (const body of bodies) {
        const response = await stack.request({ method: 'POST', url: path(supabase), headers: { 'content-type': 'application/json', ...signed(supabase.secret, body) }, payload: body });
        expect([body, response.status, response.json().error.code]).toEqual([body, 400, 'invalid_request']);
        const unsigned = await stack.request({ method: 'POST', url: path(supabase), headers: { 'content-type': 'application/json' }, payload: body });
        expect([body, unsigned.status]).toEqual([body, 401]);
      }
      const asText = await stack.request({ method: 'POST', url: path(supabase), headers: { 'content-type': 'text/plain', ...signed(supabase.secret, 'x') }, payload: 'x' });
      expect(asText.status).toBe(400);
      expect(await entryOf('malformed@example.com')).toMatchObject({ state: 'invited' });
    });

    it('asks only its own product and mode: an address invited elsewhere is refused', async () => {
      const other = await stack.createProduct({ name: 'Other' });
      const otherHook = await stack.api.get(LoginHooksService).create({ productId: other.id, mode: 'test' }, { provider: 'supabase', failOpen: false });
      const liveHook = await stack.api.get(LoginHooksService).create({ productId: product.id, mode: 'live' }, { provider: 'supabase', failOpen: false });
      const code = await invited('elsewhere@example.com');
      for (const hook of [otherHook, liveHook]) {
        expect((await callSupabase(supabasePayload('elsewhere@example.com', { invite: code }), hook)).json()).toEqual(REFUSED_NOT_INVITED);
      }
      expect(await entryOf('elsewhere@example.com')).toMatchObject({ state: 'invited' });
      // Another product's hook secret does not open this product's hook.
      expect((await callSupabase(supabasePayload('elsewhere@example.com'), supabase, (body) => signed(otherHook.secret, body))).status).toBe(401);
    });
  });

  describe('Ory Kratos', () => {
    it('lets an invited address through with 200 and refuses an unknown one with 403 and Kratos’ messages at the email field', async () => {
      await invited('kay@example.com');
      const allowed = await callKratos({ email: 'kay@example.com', invite: null });
      expect([allowed.status, allowed.json()]).toEqual([200, {}]);
      const refused = await callKratos({ email: 'stranger@example.com' });
      expect([refused.status, refused.json()]).toEqual([403, kratosRefusal(4100001, 'not_invited', REFUSED_NOT_INVITED.error.message)]);
      const noAddress = await callKratos({ email: null });
      expect([noAddress.status, noAddress.json()]).toEqual([403, kratosRefusal(4100002, 'no_address', 'Sign-up is by invitation only: sign up with the email address your invitation was sent to.')]);
    });

    it('redeems the invite code of the same address from the transient payload, and leaves a code for another address unspent', async () => {
      const code = await invited('kim@example.com');
      expect((await callKratos({ email: 'someone@example.com', invite: code })).status).toBe(403);
      expect(await entryOf('kim@example.com')).toMatchObject({ state: 'invited' });
      const allowed = await callKratos({ email: 'kim@example.com', invite: code });
      expect([allowed.status, allowed.json()]).toEqual([200, {}]);
      expect(await entryOf('kim@example.com')).toMatchObject({ state: 'redeemed' });
      expect(await redeemedEvents('kim@example.com')).toHaveLength(1);
    });

    it('needs the hook’s secret as a bearer token, and a body with the address; otherwise 401 or 400 and nothing changes', async () => {
      const code = await invited('kate@example.com');
      const body = { email: 'kate@example.com', invite: code };
      for (const authorization of ['', kratos.secret, `Bearer ${kratos.secret}x`, `Bearer ${supabase.secret}`, `Basic ${Buffer.from(`x:${kratos.secret}`).toString('base64')}`]) {
        const response = await callKratos(body, kratos, authorization);
        expect([authorization, response.status, response.json().error.code]).toEqual([authorization, 401, 'unauthorized']);
      }
      for (const malformed of [{ invite: code }, [], 'kate@example.com']) {
        const response = await callKratos(malformed);
        expect([malformed, response.status, response.json().error.code]).toEqual([malformed, 400, 'invalid_request']);
      }
      const notJson = await stack.request({ method: 'POST', url: path(kratos), headers: { authorization: `Bearer ${kratos.secret}`, 'content-type': 'application/json' }, payload: '{' });
      expect(notJson.status).toBe(400);
      expect(await entryOf('kate@example.com')).toMatchObject({ state: 'invited' });
    });
  });

  describe('dashboard', () => {
    let cookie: string;
    let csrf: string;
    let base: string;

    beforeAll(async () => {
      await stack.api.get(DashboardAuthService).createUser('team@example.com', PASSWORD, product.id);
      ({ cookie, csrf } = await signIn(stack, 'team@example.com'));
      base = `/dashboard/${product.id}/test/sign-up-hooks`;
    });

    const show = () => stack.request({ method: 'GET', url: base, headers: { cookie } });
    const post = (url: string, fields: Record<string, string> = {}) =>
      stack.request({ method: 'POST', url, headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: form({ _csrf: csrf, ...fields }) });

    it('is a section of the product: linked from every page’s navigation', async () => {
      const overview = await stack.request({ method: 'GET', url: `/dashboard/${product.id}/test/overview`, headers: { cookie } });
      expect(overview.text).toContain(`href="${base}">Sign-up hooks</a>`);
      expect((await show()).status).toBe(200);
    });

    it('creates a Supabase hook whose URL and secret show once, work as shown, and are stored sealed', async () => {
      const created = await post(base, { provider: 'supabase' });
      expect([created.status, created.headers.location]).toEqual([303, base]);
      const page = (await show()).text;
      const secret = /<code data-secret>(v1,whsec_[A-Za-z0-9+/=]{44})<\/code>/.exec(page)![1];
      const url = /URL: <code>([^<]+)<\/code>/.exec(page)![1];
      expect(url).toMatch(new RegExp(`^${stack.config.PUBLIC_BASE_URL}/hooks/v1/supabase/lh_[0-9a-f]{24}$`));
      expect(page).toContain(`GOTRUE_HOOK_BEFORE_USER_CREATED_SECRETS=${secret}`);
      expect(page).toContain('refused (fail closed)');
      const reload = (await show()).text;
      expect(reload).not.toContain(secret);
      expect(reload).toContain(url);

      const hook = { id: url.split('/').pop()!, provider: 'supabase' as const, url, secret };
      await invited('dash@example.com');
      expect((await callSupabase(supabasePayload('dash@example.com'), hook)).json()).toEqual({});
      expect((await callSupabase(supabasePayload('nobody@example.com'), hook)).json()).toEqual(REFUSED_NOT_INVITED);

      const [row] = await stack.db.getRepository(LoginHook).findBy({ id: hook.id });
      expect(row).toMatchObject({ productId: product.id, mode: 'test', provider: 'supabase', failOpen: false, revokedAt: null });
      expect(row.secret.toString('latin1')).not.toContain(secret.slice(9));
      // Sealed for its own purpose: a hook's secret never opens as a webhook signing secret.
      expect(() => new SecretBox(stack.config.ENCRYPTION_KEY).open(row.secret)).toThrow();
    });

    it('creates a Kratos hook that fails open, shows the kratos.yml lines once, and revokes it', async () => {
      expect((await post(base, { provider: 'kratos', failOpen: 'on' })).status).toBe(303);
      const page = (await show()).text;
      const secret = /<code data-secret>(lhsec_[A-Za-z0-9_-]{43})<\/code>/.exec(page)![1];
      const url = /URL: <code>([^<]+)<\/code>/.exec(page)![1];
      expect(page).toContain(`value: Bearer ${secret}`);
      expect(page).toContain('response:\n      parse: true');
      expect(page).toContain('let through (fail open)');
      const hook = { id: url.split('/').pop()!, provider: 'kratos' as const, url, secret };
      expect((await callKratos({ email: 'nobody@example.com' }, hook)).status).toBe(403);

      const revoked = await post(`${base}/${hook.id}/revoke`);
      expect([revoked.status, revoked.headers.location]).toEqual([303, base]);
      expect((await show()).text).toMatch(/revoked \d{4}-/);
      expect((await callKratos({ email: 'nobody@example.com' }, hook)).status).toBe(404);
      expect((await post(`${base}/${hook.id}/revoke`)).status).toBe(404);
    });

    it('refuses a login system it does not know, in words, and makes nothing', async () => {
      const count = async () => (await stack.db.query('SELECT count(*)::int AS n FROM login_hooks'))[0].n;
      const before = await count();
      for (const fields of [{ provider: 'auth0' }, {}] as Record<string, string>[]) {
        const response = await post(base, fields);
        expect(response.status).toBe(400);
        // In the frame's notice, where every page of the dashboard says why an action was refused.
        expect(response.text).toMatch(/<main[^>]*><p role="alert" class="said refused">[^<]*choose the login system that will call the hook/);
        expect(response.text.match(/role="alert"/g)).toHaveLength(1);
      }
      expect(await count()).toBe(before);
    });
  });
});
