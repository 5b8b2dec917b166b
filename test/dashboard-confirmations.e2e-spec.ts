import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { LoginHooksService } from '../apps/api/src/login-hooks/login-hooks.service';
import { WebhooksService } from '../apps/api/src/webhooks/webhooks.service';
import { EntryRecord } from '@app/shared';
import { form, PASSWORD, signIn } from './support/dashboard';
import { bearer, joinLine } from './support/flows';
import { Product, Stack } from './support/stack';

/**
 * Deleting an entry, revoking a key or a sign-up hook, deleting a webhook endpoint and rotating its
 * secret take two steps: a link to a page that says what will be lost, then that page's button.
 */
describe('dashboard: destructive actions ask first', () => {
  let stack: Stack;
  let acme: Product;
  let other: Product;
  let cookie: string;
  let csrf: string;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api', 'mailer'], env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
    acme = await stack.createProduct({ name: 'Acme' });
    other = await stack.createProduct({ name: 'Other' });
    await stack.api.get(DashboardAuthService).createUser('ada@example.com', PASSWORD, acme.id);
    ({ cookie, csrf } = await signIn(stack, 'ada@example.com'));
  });
  afterAll(() => stack.stop());

  const base = () => `/dashboard/${acme.id}/live`;
  const show = (url: string) => stack.request({ method: 'GET', url, headers: { cookie } });
  const post = (url: string) =>
    stack.request({ method: 'POST', url, headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: form({ _csrf: csrf }) });
  /** Everything the five actions could change, of both products. */
  const state = () =>
    stack.db.query(
      `SELECT (SELECT json_agg(e ORDER BY id) FROM entries e) AS entries,
              (SELECT json_agg(w ORDER BY id) FROM webhook_endpoints w) AS endpoints,
              (SELECT json_agg(k ORDER BY id) FROM api_keys k) AS keys,
              (SELECT json_agg(h ORDER BY id) FROM login_hooks h) AS hooks`,
    );
  /** The first step: the page that linked to it has a link (no form), and following it changes nothing. */
  async function firstStep(from: string, confirmation: string): Promise<string> {
    const linking = (await show(from)).text;
    expect(linking).toMatch(new RegExp(`<a class="button (danger|secondary)" href="${confirmation}"`));
    expect(linking).not.toContain(`action="${confirmation}"`);
    const before = await state();
    const page = await show(confirmation);
    expect([confirmation, page.status]).toEqual([confirmation, 200]);
    expect(await state()).toEqual(before);
    expect(page.text).toContain(`<form class="inline" method="post" action="${confirmation}"><input type="hidden" name="_csrf" value="${csrf}">`);
    return page.text;
  }

  it('deleting an entry: the page says its place in line and its links go, and whoever referred it keeps their places; its button deletes', async () => {
    const referrer = await joinLine(stack, acme.keys.live.publishable, 'referrer@example.com');
    const ann = await joinLine(stack, acme.keys.live.publishable, 'ann@example.com', referrer.referralCode!);
    const confirmation = `${base()}/entries/${ann.id}/delete`;
    const page = await firstStep(`${base()}/entries/${ann.id}`, confirmation);
    expect(page).toContain('The entry ann@example.com will be deleted for good, and with it its place in line (#2).');
    expect(page).toContain('Its confirmation and unsubscribe links stop working.');
    expect(page).toContain('referrer@example.com, who referred it, keeps any places its referral earned them.');
    expect(page).toContain('>Delete the entry</button>');
    expect(page).toContain(`<a href="${base()}/entries/${ann.id}">Cancel</a>`);

    const deleted = await post(confirmation);
    expect([deleted.status, deleted.headers.location]).toEqual([303, `${base()}/entries`]);
    expect(await stack.db.getRepository(EntryRecord).existsBy({ id: ann.id })).toBe(false);
    expect((await stack.db.getRepository(EntryRecord).findOneByOrFail({ id: referrer.id })).referrals).toBe(1);
  });

  it('revoking a key: the page says requests with it answer 401 and its pair’s other key keeps working; its button revokes', async () => {
    const keys = async () => stack.db.query("SELECT id, kind, hint FROM api_keys WHERE product_id = $1 AND mode = 'live' AND revoked_at IS NULL ORDER BY kind DESC", [acme.id]);
    const [secret, publishable] = await keys();
    const confirmation = `${base()}/keys/${secret.id}/revoke`;
    const page = await firstStep(`${base()}/keys`, confirmation);
    expect(page).toContain(`The secret key ${secret.hint} stops working at once: every API request made with it answers 401 from then on.`);
    expect(page).toContain(`Only this key is revoked: the publishable key of its pair, ${publishable.hint}, keeps working.`);
    expect((await stack.request({ method: 'GET', url: '/api/v1/entries', headers: bearer(acme.keys.live.secret) })).status).toBe(200);

    const sentence = (await show(`${base()}/keys/${publishable.id}/revoke`)).text;
    expect(sentence).toContain(`The publishable key ${publishable.hint} stops working at once: sign-ups with it answer 401, its hosted sign-up page /w/${publishable.hint} answers 404`);
    expect(sentence).toContain(`Only this key is revoked: the secret key of its pair, ${secret.hint}, keeps working.`);

    expect((await post(confirmation)).status).toBe(303);
    expect((await stack.request({ method: 'GET', url: '/api/v1/entries', headers: bearer(acme.keys.live.secret) })).status).toBe(401);
    // A revoked key has nothing left to confirm.
    expect((await show(confirmation)).status).toBe(404);
  });

  it('revoking a sign-up hook: the page says its URL answers 404 whether it fails open or not, and the login system stops sign-ups; its button revokes', async () => {
    const hooks = stack.api.get(LoginHooksService);
    const hook = await hooks.create({ productId: acme.id, mode: 'live' }, { provider: 'supabase', failOpen: true });
    const confirmation = `${base()}/sign-up-hooks/${hook.id}/revoke`;
    const page = await firstStep(`${base()}/sign-up-hooks`, confirmation);
    expect(page).toContain(`The Supabase Auth hook ${hook.url} stops at once: its URL answers 404 to every call from then on, although it fails open`);
    expect(page).toContain('Supabase Auth treats that as a failed hook, so every sign-up to your Supabase project fails');

    expect((await post(confirmation)).status).toBe(303);
    expect((await stack.db.query('SELECT revoked_at FROM login_hooks WHERE id = $1', [hook.id]))[0].revoked_at).not.toBeNull();
  });

  it('deleting a webhook endpoint: the page says the deliveries waiting for a retry and the delivery log go with it; its button deletes', async () => {
    const endpoint = await stack.api.get(WebhooksService).create({ productId: acme.id, mode: 'live', url: 'http://127.0.0.1:9/hook' });
    const confirmation = `${base()}/webhooks/${endpoint.id}/delete`;
    const page = await firstStep(`${base()}/webhooks`, confirmation);
    expect(page).toContain('The endpoint http://127.0.0.1:9/hook will be deleted for good: it gets no more events, the deliveries waiting for a retry are dropped');
    expect(page).toContain('its delivery log (every delivery and attempt) is deleted');

    expect((await post(confirmation)).status).toBe(303);
    expect(await stack.db.query('SELECT id FROM webhook_endpoints WHERE id = $1', [endpoint.id])).toEqual([]);
  });

  it('rotating a webhook secret: the page says the current secret signs beside the new one for 24 hours, and a secret left over from the last rotation stops; its button rotates', async () => {
    const endpoint = await stack.api.get(WebhooksService).create({ productId: acme.id, mode: 'live', url: 'http://127.0.0.1:9/rotate' });
    const confirmation = `${base()}/webhooks/${endpoint.id}/rotate`;
    const page = await firstStep(`${base()}/webhooks`, confirmation);
    expect(page).toContain('For 24 hours after that, every delivery carries two signatures, with the new secret and with the current one');
    expect(page).not.toContain('stops signing at once');

    expect((await post(confirmation)).status).toBe(303);
    const [rotated] = await stack.db.query('SELECT previous_secret_until FROM webhook_endpoints WHERE id = $1', [endpoint.id]);
    expect(rotated.previous_secret_until).not.toBeNull();
    const again = (await show(confirmation)).text;
    expect(again).toMatch(/The secret before the current one, which still signs until \d{4}-\d\d-\d\d \d\d:\d\d UTC, stops signing at once\./);
  });

  it('the confirmation pages of another product’s entry, key, hook and endpoint are 404, and nothing changes', async () => {
    const entry = await joinLine(stack, other.keys.live.publishable, 'theirs@example.com');
    const [key] = await stack.db.query("SELECT id FROM api_keys WHERE product_id = $1 AND mode = 'live' AND kind = 'secret'", [other.id]);
    const hook = await stack.api.get(LoginHooksService).create({ productId: other.id, mode: 'live' }, { provider: 'kratos', failOpen: false });
    const endpoint = await stack.api.get(WebhooksService).create({ productId: other.id, mode: 'live', url: 'http://127.0.0.1:9/theirs' });
    const before = await state();
    for (const productId of [acme.id, other.id]) {
      const at = `/dashboard/${productId}/live`;
      for (const url of [
        `${at}/entries/${entry.id}/delete`,
        `${at}/keys/${key.id}/revoke`,
        `${at}/sign-up-hooks/${hook.id}/revoke`,
        `${at}/webhooks/${endpoint.id}/delete`,
        `${at}/webhooks/${endpoint.id}/rotate`,
      ]) {
        expect([url, (await show(url)).status]).toEqual([url, 404]);
        expect([url, (await post(url)).status]).toEqual([url, 404]);
      }
    }
    expect(await state()).toEqual(before);
  });
});
