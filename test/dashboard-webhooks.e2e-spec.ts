import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { WebhooksService } from '../apps/api/src/webhooks/webhooks.service';
import { Receiver, verifyStandard } from './support/receiver';
import { waitFor } from './support/wait';
import { Product, Stack } from './support/stack';
import { PASSWORD, signIn } from './support/dashboard';

describe('dashboard: webhook endpoints and the delivery log', () => {
  let stack: Stack;
  let acme: Product;
  let cookie: string;
  let csrf: string;
  let receiver: Receiver;

  beforeAll(async () => {
    stack = await Stack.start({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
    receiver = await new Receiver().start();
    acme = await stack.createProduct();
    await stack.api.get(DashboardAuthService).createUser('ada@example.com', PASSWORD, acme.id);
    ({ cookie, csrf } = await signIn(stack, 'ada@example.com'));
  });
  afterAll(async () => {
    await receiver.stop();
    await stack.stop();
  });

  const post = (url: string, fields: [string, string][] = []) =>
    stack.request({
      method: 'POST',
      url,
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams([['_csrf', csrf], ...fields]).toString(),
    });

  it('create an endpoint (secret shown once), send a test event, see it in the delivery log', async () => {
    const base = `/dashboard/${acme.id}/live/webhooks`;
    const created = await post(base, [['url', `${receiver.url}/hook`], ['events', 'entry.invited'], ['events', 'entry.redeemed']]);
    expect([created.status, created.headers.location]).toEqual([303, base]);
    const secret = /<code data-secret>(whsec_[A-Za-z0-9_-]+)<\/code>/.exec((await stack.request({ method: 'GET', url: base, headers: { cookie } })).text)![1];
    const [endpoint] = await stack.db.query('SELECT id, events, mode FROM webhook_endpoints WHERE product_id = $1', [acme.id]);
    expect(endpoint).toMatchObject({ events: ['entry.invited', 'entry.redeemed'], mode: 'live' });
    expect((await stack.request({ method: 'GET', url: base, headers: { cookie } })).text).not.toContain(secret);

    expect((await post(`${base}/${endpoint.id}/test`)).status).toBe(303);
    expect((await stack.request({ method: 'GET', url: base, headers: { cookie } })).text).toContain('webhook.test event is on its way');
    const [delivery] = await receiver.waitFor(1);
    expect(delivery.headers['service-event']).toBe('webhook.test');
    await waitFor(async () => (await stack.request({ method: 'GET', url: `${base}/${endpoint.id}`, headers: { cookie } })).text.includes('<span class="pill succeeded">succeeded</span>'), 'the log to show the delivery');
    const log = (await stack.request({ method: 'GET', url: `${base}/${endpoint.id}`, headers: { cookie } })).text;
    expect(log).toContain('webhook.test');
    expect(log).toMatch(/ · 200 · \d+ ms/);
    const delivered = /webhook\.test<br><span class="muted">evt_[^ ]+ · (dlv_[^<]+)</.exec(log)![1];
    const again = await post(`${base}/${endpoint.id}/deliveries/${delivered}/retry`);
    expect([again.status, again.text]).toEqual([409, expect.stringContaining('This delivery is not waiting for a retry.')]);

    expect((await post(`${base}/${endpoint.id}/disable`)).status).toBe(303);
    expect((await stack.request({ method: 'GET', url: base, headers: { cookie } })).text).toContain('disabled');
    expect((await post(`${base}/${endpoint.id}/rotate`)).status).toBe(303);
    const rotated = (await stack.request({ method: 'GET', url: base, headers: { cookie } })).text;
    expect(/<code data-secret>(whsec_[A-Za-z0-9_-]+)<\/code>/.exec(rotated)![1]).not.toBe(secret);
    const refused = await post(base, [['url', 'ftp://example.com'], ['events', 'entry.invited']]);
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('https');
  });

  it('the form chooses the signature format (ours by default); a Standard Webhooks endpoint shows it, and its test event verifies with standardwebhooks', async () => {
    const base = `/dashboard/${acme.id}/test/webhooks`;
    const show = async (url: string) => (await stack.request({ method: 'GET', url, headers: { cookie } })).text;
    const form = await show(base);
    expect(form).toContain('<input type="radio" name="signatureFormat" value="service" checked>');
    expect(form).toContain('<input type="radio" name="signatureFormat" value="standard">');

    const standard = await new Receiver().start();
    try {
      const created = await post(base, [['url', `${standard.url}/standard`], ['events', 'entry.invited'], ['signatureFormat', 'standard']]);
      expect([created.status, created.headers.location]).toEqual([303, base]);
      const secret = /<code data-secret>(whsec_[A-Za-z0-9+/=]+)<\/code>/.exec(await show(base))![1];
      const [endpoint] = await stack.db.query('SELECT id, signature_format FROM webhook_endpoints WHERE url = $1', [`${standard.url}/standard`]);
      expect(endpoint.signature_format).toBe('standard');
      await post(base, [['url', `${standard.url}/ours`], ['events', 'entry.invited']]);
      const [ours] = await stack.db.query('SELECT signature_format FROM webhook_endpoints WHERE url = $1', [`${standard.url}/ours`]);
      expect(ours.signature_format).toBe('service');

      const rows = (await show(base)).split('<tr>');
      expect(rows.find((row) => row.includes(`${standard.url}/standard`))).toContain('Standard Webhooks');
      expect(rows.find((row) => row.includes(`${standard.url}/ours`))).toContain('Service-Signature');
      expect(await show(`${base}/${endpoint.id}`)).toContain('Standard Webhooks');

      expect((await post(`${base}/${endpoint.id}/test`)).status).toBe(303);
      const [delivery] = await standard.waitFor(1);
      expect(verifyStandard(delivery, secret)).toMatchObject({ type: 'webhook.test', mode: 'test' });
      expect(delivery.headers['service-event']).toBe('webhook.test');

      expect((await post(`${base}/${endpoint.id}/rotate`)).status).toBe(303);
      expect(await show(base)).toMatch(/<code data-secret>whsec_[A-Za-z0-9+/]{43}=<\/code>/);

      const before = await stack.db.query('SELECT count(*)::int AS n FROM webhook_endpoints');
      const refused = await post(base, [['url', `${standard.url}/stripe`], ['events', 'entry.invited'], ['signatureFormat', 'stripe']]);
      expect([refused.status, refused.text]).toEqual([400, expect.stringContaining('Choose how deliveries are signed')]);
      expect(await stack.db.query('SELECT count(*)::int AS n FROM webhook_endpoints')).toEqual(before);
    } finally {
      await standard.stop();
    }
  });

  it('another product’s endpoints are out of reach', async () => {
    const other = await stack.createProduct({ name: 'Other' });
    const foreign = await stack.api.get(WebhooksService).create({ productId: other.id, mode: 'live', url: receiver.url });
    expect((await stack.request({ method: 'GET', url: `/dashboard/${acme.id}/live/webhooks/${foreign.id}`, headers: { cookie } })).status).toBe(404);
    expect((await post(`/dashboard/${acme.id}/live/webhooks/${foreign.id}/delete`)).status).toBe(404);
    expect((await stack.db.query('SELECT 1 FROM webhook_endpoints WHERE id = $1', [foreign.id])).length).toBe(1);
  });
});
