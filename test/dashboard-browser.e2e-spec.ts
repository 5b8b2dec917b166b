import { Browser, Page } from 'playwright-core';
import { CommandQueue, QueueName } from '@app/shared';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { launchBrowser, serve } from './support/browser';
import { PASSWORD } from './support/dashboard';
import { bearer, joinLine } from './support/flows';
import { invitationsTo } from './support/invitations';
import { Receiver, verify } from './support/receiver';
import { Product, Stack } from './support/stack';
import { freePort } from './support/throwaway-redis';
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

  it('logs in, adds an endpoint and copies its secret, finds an entry and invites it, sees a test event in the log, creates a key and revokes it through its confirmation page', async () => {
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
    await page.locator('tr', { hasText: `${key.slice(0, 12)}…${key.slice(-4)}` }).getByRole('link', { name: 'Revoke' }).click();
    // The first click only asks: the key works until the confirmation's button is pressed.
    expect(await page.getByRole('heading').first().textContent()).toBe('Revoke the secret key?');
    expect(await page.getByText('answers 401').textContent()).toContain(`${key.slice(0, 12)}…${key.slice(-4)}`);
    expect((await listEntries(key)).status).toBe(200);
    await page.getByRole('button', { name: 'Revoke the key' }).click();
    expect(await page.locator('tr', { hasText: `${key.slice(0, 12)}…${key.slice(-4)}` }).textContent()).toContain('revoked');
    expect((await listEntries(key)).status).toBe(401);
  }, 60_000);

  it('moves up two selected entries in bulk after a page that counts them, then deletes every entry of a search', async () => {
    await nav('Entries');
    await page.getByLabel('Select first@example.com').check();
    await page.getByLabel('Select third@example.com').check();
    await page.getByLabel('Bulk action').selectOption('move-up');
    await page.getByLabel('Places (move up)').fill('3');
    await page.getByRole('button', { name: 'Apply to the selected' }).click();
    await page.getByRole('heading', { name: 'Move up 2 entries by 3 places each?' }).waitFor();
    await page.getByRole('button', { name: 'Move up 2 entries' }).click();
    expect(await status()).toContain('2 of 2 entries moved up.');
    const moved = await stack.db.query(`SELECT email, moved_up::int FROM entries WHERE product_id = $1 AND email IN ('first@example.com', 'third@example.com') ORDER BY email`, [acme.id]);
    expect(moved).toEqual([{ email: 'first@example.com', moved_up: 3 }, { email: 'third@example.com', moved_up: 3 }]);

    await page.getByPlaceholder('Find by email').fill('third');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByLabel('Bulk action').selectOption('delete');
    await page.getByRole('button', { name: 'Apply to all matching entries' }).click();
    await page.getByRole('heading', { name: 'Delete 1 entry?' }).waitFor();
    await page.getByRole('button', { name: 'Delete 1 entry' }).click();
    expect(await status()).toContain('1 of 1 entry deleted.');
    expect(await stack.db.query(`SELECT id FROM entries WHERE product_id = $1 AND email = 'third@example.com'`, [acme.id])).toEqual([]);
  }, 60_000);
});

describe('Bull Board in a real browser', () => {
  let stack: Stack;
  let browser: Browser;
  let queue: CommandQueue;
  let elsewhere: Server;
  let base: string;

  beforeAll(async () => {
    // The board acts only for pages at PUBLIC_BASE_URL, so the api listens at the address it is given.
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    stack = await Stack.start({ apps: ['api'], env: { PUBLIC_BASE_URL: base } });
    await stack.api.get(DashboardAuthService).createUser('ops@example.com', PASSWORD, null, { operator: true });
    await stack.api.listen(port, '127.0.0.1');
    queue = CommandQueue.open(QueueName.Deliveries, stack.config);
    // A page on another port of the same host: the same site, so the SameSite=Lax session goes with its form.
    elsewhere = createServer((_, response) => {
      response.setHeader('content-type', 'text/html; charset=utf-8');
      response.end(`<form method="post" action="${base}/admin/queues/api/queues/deliveries/add"><input name="name" value="forged"><button>Win a prize</button></form>`);
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => elsewhere?.close(resolve));
    await queue?.close();
    await stack?.stop();
  });

  it('an operator pauses and resumes a queue on the board; a form on another port of the same host adds no job', async () => {
    const page = await browser.newPage({ baseURL: base });
    page.setDefaultTimeout(10_000);
    await page.goto('/dashboard/login');
    await page.getByLabel('Email').fill('ops@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Queues' }).click();

    await page.goto('/admin/queues/queue/deliveries');
    const act = async (action: 'Pause' | 'Resume') => {
      await page.locator('button[aria-haspopup="menu"]').click();
      await page.getByRole('menuitem', { name: action, exact: true }).click();
      await page.getByRole('button', { name: 'Confirm' }).click();
    };
    await act('Pause');
    await waitFor(() => queue.isPaused(), 'the queue paused from the board');
    await act('Resume');
    await waitFor(async () => !(await queue.isPaused()), 'the queue resumed from the board');

    await page.goto(`http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}/`);
    const answer = page.waitForResponse((response) => response.url().endsWith('/deliveries/add'));
    await page.getByRole('button', { name: 'Win a prize' }).click();
    expect((await answer).status()).toBe(403);
    expect(Object.values(await queue.getJobCounts()).reduce((sum, count) => sum + count, 0)).toBe(0);
  });
});
