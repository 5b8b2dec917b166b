import { Browser, Page } from 'playwright-core';
import { DashboardAuthService } from '../apps/api/src/dashboard/dashboard-auth.service';
import { launchBrowser, serve } from './support/browser';
import { PASSWORD } from './support/dashboard';
import { bearer, joinLine } from './support/flows';
import { invitationsTo } from './support/invitations';
import { Receiver, verify } from './support/receiver';
import { Product, Stack } from './support/stack';
import { waitFor } from './support/wait';

/** The acceptance path of the dashboard, clicked through in Debian's chromium. */
describe('dashboard in a real browser', () => {
  let stack: Stack;
  let receiver: Receiver;
  let browser: Browser;
  let page: Page;
  let acme: Product;

  beforeAll(async () => {
    stack = await Stack.start({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
    receiver = await new Receiver().start();
    acme = await stack.createProduct({ name: 'Acme' });
    await stack.api.get(DashboardAuthService).createUser('ada@example.com', PASSWORD, acme.id);
    for (const email of ['first@example.com', 'guest@example.com', 'third@example.com']) await joinLine(stack, acme.keys.live.publishable, email);
    const baseURL = await serve(stack);
    browser = await launchBrowser();
    page = await browser.newPage({ baseURL });
    // Far below the test's own timeout, so that a missing element is reported by name.
    page.setDefaultTimeout(10_000);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await receiver?.stop();
    await stack?.stop();
  });

  const nav = (name: string) => page.getByRole('navigation').getByRole('link', { name, exact: true }).click();
  const status = () => page.getByRole('status').textContent();
  const listEntries = (secret: string) => stack.request({ method: 'GET', url: '/api/v1/entries', headers: bearer(secret) });

  it('logs in, adds an endpoint and copies its secret, finds an entry and invites it, sees a test event in the log, creates and revokes a key', async () => {
    await page.goto('/dashboard');
    expect(page.url()).toMatch(/\/dashboard\/login$/);
    await page.getByLabel('Email').fill('ada@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Acme' }).click();
    expect(await page.getByRole('heading').first().textContent()).toBe('Overview (live)');

    await nav('Webhooks');
    await page.getByPlaceholder('https://example.com/webhooks').fill(`${receiver.url}/hook`);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = (await page.locator('code[data-secret]').textContent())!;
    expect(secret).toMatch(/^whsec_/);

    await nav('Entries');
    await page.getByPlaceholder('Find by email').fill('guest@example.com');
    await page.getByRole('button', { name: 'Filter' }).click();
    expect(await page.locator('table tr').count()).toBe(2);
    await page.getByRole('link', { name: 'guest@example.com' }).click();
    expect(await page.getByText('Place in line').textContent()).toContain('#2');
    await page.getByRole('button', { name: 'Invite', exact: true }).click();
    expect(await status()).toContain('the entry is invited');
    await stack.mail.waitFor('guest@example.com', 2);
    expect(invitationsTo(stack, 'guest@example.com')).toHaveLength(1);
    await waitFor(() => receiver.received.some((delivery) => delivery.headers['service-event'] === 'entry.invited'), 'entry.invited at the receiver');
    const invited = receiver.received.find((delivery) => delivery.headers['service-event'] === 'entry.invited')!;
    expect(JSON.parse(invited.body).data.entry.email).toBe('guest@example.com');
    expect(verify(String(invited.headers['service-signature']), invited.body, secret)).toBe(true);

    await nav('Webhooks');
    await page.getByRole('button', { name: 'Send test event' }).click();
    expect(await status()).toContain('webhook.test event is on its way');
    await page.getByRole('link', { name: 'Delivery log' }).click();
    // The page does not change by itself: reload until the delivery is there (count() does not wait).
    await waitFor(async () => {
      await page.reload();
      const row = page.locator('tr', { hasText: 'webhook.test' });
      return (await row.count()) === 1 && ((await row.textContent()) ?? '').includes('succeeded');
    }, 'the test event in the delivery log', { intervalMs: 200 });
    expect(await page.locator('tr', { hasText: 'webhook.test' }).textContent()).toMatch(/ · 200 · \d+ ms/);

    await nav('API keys');
    await page.getByRole('button', { name: 'Create a key pair' }).click();
    const key = (await page.locator('code[data-secret]').textContent())!;
    expect((await listEntries(key)).status).toBe(200);
    // The secret was shown on the page the form redirected to: a reload shows it no more and makes no key.
    const keys = await page.locator('tr').count();
    await page.reload();
    expect(page.url()).toMatch(/\/keys$/);
    expect(await page.locator('code[data-secret]').count()).toBe(0);
    expect(await page.locator('tr').count()).toBe(keys);
    await page.locator('tr', { hasText: `${key.slice(0, 12)}…${key.slice(-4)}` }).getByRole('button', { name: 'Revoke' }).click();
    expect(await page.locator('tr', { hasText: `${key.slice(0, 12)}…${key.slice(-4)}` }).textContent()).toContain('revoked');
    expect((await listEntries(key)).status).toBe(401);
  });
});
