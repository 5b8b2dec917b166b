import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Browser, Page } from 'playwright-core';
import { DashboardAuthService } from '../../apps/api/src/dashboard/auth/dashboard-auth.service';
import { launchBrowser } from '../../test/support/browser';
import { PASSWORD } from '../../test/support/dashboard';
import { confirmPath, joinLine } from '../../test/support/flows';
import { Receiver } from '../../test/support/receiver';
import { seedHistory } from '../../test/support/seed';
import { Stack } from '../../test/support/stack';
import { waitFor } from '../../test/support/wait';

const OUT = join(__dirname, '../../docs/screenshots');

describe('docs screenshots', () => {
  let stack: Stack;
  let receiver: Receiver;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    stack = await Stack.start({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
    receiver = await new Receiver().start();
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await receiver?.stop();
    await stack?.stop();
  });

  const shoot = (name: string) => page.screenshot({ path: join(OUT, `${name}.png`) });
  const nav = (name: string) => page.getByRole('navigation').getByRole('link', { name, exact: true }).click();

  it('takes the main screens of the dashboard', async () => {
    const acme = await stack.createProduct({ name: 'Acme Notes' });
    await seedHistory(stack.db, { productId: acme.id, mode: 'live' }, 2400, 'guest');
    await stack.api.get(DashboardAuthService).createUser('ada@acme.example', PASSWORD, acme.id);
    const friend = await joinLine(stack, acme.keys.live.publishable, 'grace@acme.example');
    await joinLine(stack, acme.keys.live.publishable, 'alan@acme.example', friend.referralCode!);

    page = await browser.newPage({ baseURL: await stack.url(), viewport: { width: 1280, height: 1000 } });
    await page.goto('/dashboard/login');
    await page.getByLabel('Email').fill('ada@acme.example');
    await shoot('login');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Acme Notes' }).click();
    await shoot('overview');

    await nav('Entries');
    await shoot('entries');
    await page.getByPlaceholder('Find by email').fill('grace@acme.example');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByRole('link', { name: 'grace@acme.example' }).click();
    await shoot('entry');
    const entry = page.url();

    await nav('Line');
    await shoot('line');

    await nav('Webhooks');
    await page.getByPlaceholder('https://example.com/webhooks').fill(`${receiver.url}/webhooks`);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await shoot('webhooks');
    // The first delivery fails and waits for its next attempt; the second one goes through.
    receiver.answer = (index) => (index === 0 ? 503 : 200);
    await page.getByRole('button', { name: 'Send test event' }).click();
    await waitFor(() => receiver.received.length === 1, 'the first delivery');
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.getByRole('link', { name: 'Delivery log' }).click();
    await waitFor(async () => {
      await page.reload();
      return (await page.getByRole('button', { name: 'Retry now' }).count()) === 1 && (await page.content()).includes('succeeded');
    }, 'a waiting and a delivered test event in the log', { intervalMs: 200 });
    await shoot('delivery-log');

    await nav('API keys');
    await page.getByRole('button', { name: 'Create a key pair' }).click();
    await shoot('keys');

    await nav('Settings');
    await shoot('settings');

    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(entry);
    await shoot('phone-entry');
  });

  it('takes the product’s voice: the template editor, a German status page, the script-tag form on a page', async () => {
    const acme = await stack.createProduct({ name: 'Acme Notes' });
    await stack.api.get(DashboardAuthService).createUser('lin@acme.example', PASSWORD, acme.id);
    const base = await stack.url();
    page = await browser.newPage({ baseURL: base, viewport: { width: 1280, height: 1000 } });
    await page.goto('/dashboard/login');
    await page.getByLabel('Email').fill('lin@acme.example');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Acme Notes' }).click();
    await nav('Mail templates');
    await page.getByRole('row', { name: /Confirmation mail/ }).getByRole('link').first().click();
    await page.getByLabel('Subject').fill('Welcome to {{ product_name }}: one click to go');
    await page.locator('#preview-subject').getByText('Welcome to Acme Notes: one click to go').waitFor();
    await shoot('template-editor');

    // A German sign-up through the link of someone already in line, confirmed: its status page. (Addresses
    // not used above: the sink's mails are looked up by address.)
    const friend = await joinLine(stack, acme.keys.live.publishable, 'hedy@acme.example');
    const signedUp = await stack.request({ method: 'POST', url: '/public/v1/signups', body: { key: acme.keys.live.publishable, email: 'lena@acme.example', locale: 'de', ref: friend.referralCode } });
    expect(signedUp.status).toBe(202);
    const status = await confirmPath(stack, 'lena@acme.example');
    await stack.request({ method: 'POST', url: status });
    await page.setViewportSize({ width: 600, height: 900 });
    await page.goto(status);
    await shoot('status-de');

    // The script-tag form on a customer's page of another origin, after its person confirmed.
    const snippet = `<script src="${base}/embed.js" data-key="${acme.keys.live.publishable}" async></script>`;
    const site = createServer((_, response) =>
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Acme Notes</title>
<style>body{font:17px/1.5 Georgia,serif;max-width:36rem;margin:3rem auto;color:#222} .signup{--waitlist-accent:#0a7d4f;--waitlist-radius:4px}</style></head>
<body><h1>Acme Notes</h1><p>Notes your whole team can write in at once. We open the doors in waves: join the line.</p>
<div class="signup">${snippet}</div></body></html>`),
    );
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    try {
      await page.setViewportSize({ width: 900, height: 900 });
      await page.goto(`http://localhost:${(site.address() as AddressInfo).port}/?ref=${friend.referralCode}`);
      await page.getByLabel('Email address').fill('katherine@acme.example');
      await page.getByRole('button', { name: 'Join the waitlist' }).click();
      await page.getByText('Check your inbox').waitFor();
      await stack.request({ method: 'POST', url: await confirmPath(stack, 'katherine@acme.example') });
      await page.getByText('Your place in line:').waitFor();
      await shoot('embed-form');
    } finally {
      site.close();
    }
  });
});
