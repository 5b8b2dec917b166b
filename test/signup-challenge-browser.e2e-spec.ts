import { EntryRecord } from '@app/shared';
import { Browser, Page } from 'playwright-core';
import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { ProductsService } from '../apps/api/src/products/products.service';
import { customerPage, dashboardPage } from './support/browser';
import { PASSWORD } from './support/dashboard';
import { Product, Stack } from './support/stack';

/**
 * The sign-up challenge in Debian's chromium: set in the dashboard, solved by the hosted form (under its
 * own policy) and by the script-tag form on a page of another origin under the strict CSP the embed passes.
 */
describe('the sign-up challenge in a real browser', () => {
  let stack: Stack;
  let browser: Browser;
  let page: Page;
  let base: string;
  let acme: Product;
  const refused: string[] = [];

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api'], env: { RATE_LIMIT_SIGNUP: '10000/1m' } });
    acme = await stack.createProduct({ name: 'Acme' });
    await stack.api.get(DashboardAuthService).createUser('ada@example.com', PASSWORD, acme.id);
    ({ browser, page } = await dashboardPage(stack, 'ada@example.com', PASSWORD));
    base = new URL(page.url()).origin;
    page.on('console', (message) => {
      if (/Content Security Policy|Refused/i.test(message.text())) refused.push(message.text());
    });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  const entry = (email: string) => stack.db.getRepository(EntryRecord).findOneBy({ email, productId: acme.id });
  const setMode = (challengeMode: 'invisible' | 'required') => stack.api.get(ProductsService).update(acme.id, { challengeMode });

  it('the team makes it required in the settings; the hosted form shows the check, waits for it, then signs up', async () => {
    await page.goto(`/dashboard/${acme.id}/live/settings`);
    await page.getByRole('link', { name: 'Bot defence' }).click();
    await page.getByLabel('Challenge', { exact: true }).selectOption('required');
    await page.getByLabel('Difficulty').fill('20000');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    expect(await stack.api.get(ProductsService).find(acme.id)).toMatchObject({ challengeMode: 'required', challengeDifficulty: 20000 });

    await page.goto(`/w/${acme.keys.live.publishable}`);
    await page.getByRole('status').filter({ hasText: 'Checked: you can join.' }).waitFor();
    await page.getByLabel('Email address').fill('hosted-required@example.com');
    await page.getByRole('button', { name: 'Join the waitlist' }).click();
    await page.getByText('Check your inbox').waitFor();
    expect((await entry('hosted-required@example.com'))?.state).toBe('pending');
    expect(refused).toEqual([]);
  }, 60_000);

  it('invisible: the hosted form shows nothing of it, and a quick person waits for it without knowing', async () => {
    await setMode('invisible');
    await page.goto(`/w/${acme.keys.live.publishable}`);
    expect(await page.locator('.challenge').count()).toBe(0);
    await page.getByLabel('Email address').fill('hosted-invisible@example.com');
    await page.getByRole('button', { name: 'Join the waitlist' }).click();
    await page.getByText('Check your inbox').waitFor();
    expect((await entry('hosted-invisible@example.com'))?.state).toBe('pending');
    expect(refused).toEqual([]);
  }, 60_000);

  it('the script-tag form solves it under the customer page\'s strict CSP, invisible and required', async () => {
    const customer = await customerPage(base, `<script src="${base}/embed.js" data-key="${acme.keys.live.publishable}" async></script>`);
    try {
      for (const mode of ['invisible', 'required'] as const) {
        await setMode(mode);
        const email = `embed-${mode}@example.com`;
        const embedded = await browser.newPage();
        embedded.setDefaultTimeout(15_000);
        embedded.on('console', (message) => {
          if (/Content Security Policy|Refused/i.test(message.text())) refused.push(message.text());
        });
        await embedded.goto(customer.url);
        if (mode === 'required') await embedded.getByRole('status').filter({ hasText: 'Checked: you can join.' }).waitFor();
        else expect(await embedded.getByRole('status').count()).toBe(0);
        await embedded.getByLabel('Email address').fill(email);
        await embedded.getByRole('button', { name: 'Join the waitlist' }).click();
        await embedded.getByText('Check your inbox').waitFor();
        expect((await entry(email))?.state).toBe('pending');
        await embedded.close();
      }
      expect(refused).toEqual([]);
    } finally {
      customer.server.close();
    }
  }, 60_000);
});
