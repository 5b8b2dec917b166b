import { LoginHooksService, NewLoginHook } from '../apps/api/src/login-hooks/login-hooks.service';
import { seedLine } from './support/invitations';
import { Product, Stack } from './support/stack';
import { TcpProxy } from './support/tcp-proxy';
import { REFUSED_NOT_INVITED, REFUSED_UNAVAILABLE, signed, supabasePayload } from './support/login-hooks';

// Alone in its file: Nest's Logger writes through the app created last in this process, and this describe reads the api's logs.
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
    const response = await stack.request({ method: 'POST', url: new URL(hook.url).pathname, headers: { 'content-type': 'application/json', ...headers }, payload: body });
    return { status: response.status, body: response.json() };
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
    // That each answer comes within its budget is held by login-hooks.service.spec.ts on a fake clock.
    it(`${outage}: a fail-closed hook refuses even an invited address, a fail-open one lets anyone through, and a hook this process never read refuses`, async () => {
      cause(proxy);
      try {
        const closed = await call(hooks.closed, invitedAddress);
        expect(closed).toMatchObject({ status: 200, body: REFUSED_UNAVAILABLE });
        const open = await call(hooks.open, 'stranger@example.com');
        expect(open).toMatchObject({ status: 200, body: {} });
        // Without its secret no call can be trusted, so nothing can be let through.
        const unread = await call(hooks.unread, invitedAddress);
        expect(unread).toMatchObject({ status: 200, body: REFUSED_UNAVAILABLE });
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
