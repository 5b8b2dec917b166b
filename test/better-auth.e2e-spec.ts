import { EntryRecord } from '@app/shared';
import { WaitlistClient } from '@waitlist/client';
import { betterAuth } from 'better-auth';
import { getMigrations } from 'better-auth/db/migration';
import { randomBytes } from 'node:crypto';
import { Pool } from 'pg';
import { waitlist, type WaitlistPluginOptions } from '../libs/integrations/src/better-auth';
import { REFUSALS } from '../libs/integrations/src/sign-up-check';
import { closedPort } from './support/closed-port';
import { admin, databaseUrl, endPool, TEMPLATE_ENV } from './support/databases';
import { codeIn, InvitationApi, invitationsTo, invitationStack, line } from './support/invitations';
import { Receiver } from './support/receiver';
import { Stack } from './support/stack';

describe('waitlist plugin for better-auth', () => {
  // Named after the run's template, so that the global teardown drops it even after a crash.
  const database = `${process.env[TEMPLATE_ENV]}_better_auth_${randomBytes(4).toString('hex')}`;
  let pool: Pool;
  let stack: Stack;
  let api: InvitationApi;
  let pk: string;
  let secretKey: string;
  let serviceUrl: string;

  /** better-auth as a product would set it up, on its own database, with our plugin in front. */
  function authWith({
    baseUrl = serviceUrl,
    key = secretKey,
    requireEmailVerification = false,
    ...plugin
  }: Partial<WaitlistPluginOptions> & { baseUrl?: string; key?: string; requireEmailVerification?: boolean } = {}) {
    return betterAuth({
      database: pool,
      baseURL: 'http://localhost:3000',
      secret: 'a-better-auth-secret-for-the-tests-only',
      emailAndPassword: { enabled: true, requireEmailVerification },
      logger: { disabled: true },
      plugins: [waitlist({ client: new WaitlistClient({ baseUrl, secretKey: key }), ...plugin })],
    });
  }

  type Auth = ReturnType<typeof authWith>;

  function signUp(auth: Auth, email: string, body: Record<string, string> = {}, headers = new Headers()) {
    return auth.api.signUpEmail({ body: { name: 'Ada', email, password: 'correct horse battery staple', ...body }, headers });
  }

  /** A request to better-auth's own HTTP handler, as a browser on the product's site sends it. */
  function post(auth: Auth, path: string, body: unknown, cookie?: string): Promise<Response> {
    const headers = { 'content-type': 'application/json', origin: 'http://localhost:3000', ...(cookie ? { cookie } : {}) };
    return auth.handler(new Request(`http://localhost:3000/api/auth${path}`, { method: 'POST', headers, body: JSON.stringify(body) }));
  }

  async function users(email: string): Promise<{ emailVerified: boolean }[]> {
    return (await pool.query('SELECT "emailVerified" FROM "user" WHERE email = $1', [email])).rows;
  }

  /** A confirmed entry invited by mail; answers its invite code. */
  async function invite(email: string): Promise<string> {
    const [entry] = await line(stack, pk, [email]);
    expect((await api.invite(entry.id)).status).toBe(200);
    return codeIn(invitationsTo(stack, email)[0]);
  }

  async function state(email: string): Promise<string> {
    return (await stack.db.getRepository(EntryRecord).findOneByOrFail({ email })).state;
  }

  async function refusal(promise: Promise<unknown>): Promise<{ status: unknown; body: unknown }> {
    const error = await promise.then(
      () => undefined,
      (error: { status: unknown; body: unknown }) => error,
    );
    if (!error) throw new Error('The sign-up was let through');
    return { status: error.status, body: error.body };
  }

  beforeAll(async () => {
    await admin((client) => client.query(`CREATE DATABASE ${database}`));
    pool = new Pool({ connectionString: databaseUrl(database) });
    const { runMigrations } = await getMigrations(authWith({ baseUrl: 'http://127.0.0.1:1', key: 'sk_test_unused' }).options);
    await runMigrations();
    let product;
    ({ stack, product, pk, client: api } = await invitationStack());
    secretKey = product.keys.test.secret;
    serviceUrl = await stack.url();
  });

  afterAll(async () => {
    await stack?.stop();
    if (pool) await endPool(pool);
    await admin((client) => client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
  });

  it('lets an invited address sign up, its address not yet verified', async () => {
    await invite('ada@example.com');
    const { user } = await signUp(authWith(), 'ada@example.com');
    expect(user.email).toBe('ada@example.com');
    expect(await users('ada@example.com')).toEqual([{ emailVerified: false }]);
    expect(await state('ada@example.com')).toBe('invited');
  });

  it('refuses an address that is not invited with a 403 in words, and creates no user', async () => {
    await line(stack, pk, ['waiting@example.com']);
    for (const email of ['waiting@example.com', 'stranger@example.com']) {
      expect(await refusal(signUp(authWith(), email))).toEqual({
        status: 'FORBIDDEN',
        body: { code: 'WAITLIST_NOT_INVITED', message: REFUSALS.not_invited },
      });
      expect(await users(email)).toEqual([]);
    }
  });

  it('redeems the invite code of the same address sent with the sign-up, and marks the address verified', async () => {
    const code = await invite('grace@example.com');
    await signUp(authWith(), 'grace@example.com', { invite: code });
    expect(await users('grace@example.com')).toEqual([{ emailVerified: true }]);
    expect(await state('grace@example.com')).toBe('redeemed');
    expect((await api.verify(code)).json()).toEqual({ valid: false });
  });

  it('leaves a code of another address unused: an address not invited is refused in words that say so, an invited one gets in', async () => {
    const code = await invite('owner@example.com');
    expect(await refusal(signUp(authWith(), 'friend@example.com', { invite: code }))).toEqual({
      status: 'FORBIDDEN',
      body: { code: 'WAITLIST_OTHER_ADDRESS', message: REFUSALS.other_address },
    });
    expect(await users('friend@example.com')).toEqual([]);
    await invite('other@example.com');
    await signUp(authWith(), 'other@example.com', { invite: code });
    expect(await users('other@example.com')).toEqual([{ emailVerified: false }]);
    expect(await state('other@example.com')).toBe('invited');
    expect(await state('owner@example.com')).toBe('invited');
  });

  it('lets an invited address in with a code already used, or with one no code could be, as the invited check says', async () => {
    const code = await invite('twice@example.com');
    expect((await api.redeem(code)).json()).toEqual({ valid: true, email: 'twice@example.com' });
    await signUp(authWith(), 'twice@example.com', { invite: code });
    expect(await users('twice@example.com')).toEqual([{ emailVerified: false }]);
    await invite('long@example.com');
    await signUp(authWith(), 'long@example.com', { invite: 'x'.repeat(513) });
    expect(await users('long@example.com')).toEqual([{ emailVerified: false }]);
  });

  it('keeps the code of the landing page in a cookie that the sign-up over HTTP redeems', async () => {
    const code = await invite('lin@example.com');
    const auth = authWith();
    const landing = await post(auth, '/waitlist/invite', { invite: code });
    expect(landing.status).toBe(200);
    expect(await landing.json()).toEqual({ valid: true, email: 'lin@example.com' });
    const cookie = landing.headers.getSetCookie()[0];
    expect(cookie).toMatch(/^better-auth\.waitlist_invite=.+; Max-Age=86400; Path=\/; HttpOnly; SameSite=Lax$/);
    expect(await state('lin@example.com')).toBe('invited');

    const signUpAnswer = await post(auth, '/sign-up/email', { name: 'Lin', email: 'lin@example.com', password: 'correct horse battery staple' }, cookie.split(';')[0]);
    expect(signUpAnswer.status).toBe(200);
    expect(await users('lin@example.com')).toEqual([{ emailVerified: true }]);
    expect(await state('lin@example.com')).toBe('redeemed');
  });

  it('answers the landing page valid false for an unknown code and sets no cookie, and 400 without a code', async () => {
    const answer = await post(authWith(), '/waitlist/invite', { invite: 'made-up' });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ valid: false });
    expect(answer.headers.getSetCookie()).toEqual([]);
    expect((await post(authWith(), '/waitlist/invite', {})).status).toBe(400);
  });

  it('shows the refusal over HTTP as better-auth answers its errors: the status and a JSON body with code and message', async () => {
    const answer = await post(authWith(), '/sign-up/email', { name: 'Eve', email: 'eve@example.com', password: 'correct horse battery staple' });
    expect(answer.status).toBe(403);
    expect(await answer.json()).toEqual({ code: 'WAITLIST_NOT_INVITED', message: REFUSALS.not_invited });
  });

  it('is hidden behind the usual answer when requireEmailVerification is on, as better-auth hides every refused sign-up', async () => {
    const answer = await post(authWith({ requireEmailVerification: true }), '/sign-up/email', {
      name: 'Mal',
      email: 'mal@example.com',
      password: 'correct horse battery staple',
    });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ token: null, user: { email: 'mal@example.com' } });
    expect(await users('mal@example.com')).toEqual([]);
  });

  describe('when the waitlist cannot answer', () => {
    it('refuses every sign-up by default (fail closed) with a 503, and creates no user', async () => {
      await invite('closed@example.com');
      const unreachable = authWith({ baseUrl: await closedPort() });
      expect(await refusal(signUp(unreachable, 'closed@example.com'))).toEqual({
        status: 'SERVICE_UNAVAILABLE',
        body: { code: 'WAITLIST_UNAVAILABLE', message: REFUSALS.unavailable },
      });
      expect(await users('closed@example.com')).toEqual([]);
    });

    it('lets sign-ups through with failOpen', async () => {
      const { user } = await signUp(authWith({ baseUrl: await closedPort(), failOpen: true }), 'open@example.com');
      expect(user.email).toBe('open@example.com');
      expect(await users('open@example.com')).toEqual([{ emailVerified: false }]);
    });

    it('gives up after timeoutMs on a service that does not answer', async () => {
      const silent = await new Receiver().start();
      silent.answer = () => 'hang';
      // The budget reaches the calls as their signal; the wall clock of a busy machine would prove nothing more.
      const budgets = jest.spyOn(AbortSignal, 'timeout');
      try {
        const refused = await refusal(signUp(authWith({ baseUrl: silent.url, timeoutMs: 500 }), 'slow@example.com'));
        expect(refused.status).toBe('SERVICE_UNAVAILABLE');
        expect(budgets).toHaveBeenCalledWith(500);
        expect(await users('slow@example.com')).toEqual([]);
      } finally {
        budgets.mockRestore();
        await silent.stop();
      }
    });

    it('never opens for a wrong secret key, even with failOpen', async () => {
      const wrongKey = authWith({ key: 'sk_test_revoked', failOpen: true });
      expect((await refusal(signUp(wrongKey, 'revoked@example.com'))).status).toBe('SERVICE_UNAVAILABLE');
      expect(await users('revoked@example.com')).toEqual([]);
    });
  });
});
