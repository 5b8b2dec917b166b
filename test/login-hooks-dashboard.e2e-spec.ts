import { LoginHook, SecretBox } from '@app/shared';
import { LoginHooksService } from '../apps/api/src/login-hooks/login-hooks.service';
import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { form, PASSWORD, signIn } from './support/dashboard';
import { Product, Stack } from './support/stack';
import { HookStack, hookStack, REFUSED_NOT_INVITED, supabasePayload } from './support/login-hooks';

describe(LoginHooksService.name, () => {
  let stack: Stack;
  let product: Product;
  let invited: HookStack['invited'];
  let callSupabase: HookStack['callSupabase'];
  let callKratos: HookStack['callKratos'];

  beforeAll(async () => {
    ({ stack, product, invited, callSupabase, callKratos } = await hookStack());
  });
  afterAll(() => stack.stop());

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
