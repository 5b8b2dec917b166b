import { EntryRecord } from '@app/shared';
import { randomUUID } from 'node:crypto';
import { LoginHooksService, NewLoginHook } from '../apps/api/src/login-hooks/login-hooks.service';
import { events } from './support/flows';
import { InvitationApi } from './support/invitations';
import { Product, Stack } from './support/stack';
import { handSigned, HookStack, hookStack, kratosRefusal, REFUSED_NOT_INVITED, signed, supabasePayload } from './support/login-hooks';

describe(LoginHooksService.name, () => {
  let stack: Stack;
  let product: Product;
  let pk: string;
  let client: InvitationApi;
  let supabase: NewLoginHook;
  let kratos: NewLoginHook;
  let path: HookStack['path'];
  let invited: HookStack['invited'];
  let callSupabase: HookStack['callSupabase'];
  let callKratos: HookStack['callKratos'];

  beforeAll(async () => {
    ({ stack, product, pk, client, supabase, kratos, path, invited, callSupabase, callKratos } = await hookStack());
  });
  afterAll(() => stack.stop());

  const entryOf = (email: string) => stack.db.getRepository(EntryRecord).findOneByOrFail({ productId: product.id, mode: 'test', email });
  const redeemedEvents = async (email: string) => (await events(stack)).filter((event) => event.type === 'entry.redeemed' && event.data.entry.email === email);

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
});
