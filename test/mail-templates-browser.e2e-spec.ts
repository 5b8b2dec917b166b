import { Browser, Page } from 'playwright-core';
import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { launchBrowser, serve } from './support/browser';
import { PASSWORD } from './support/dashboard';
import { Stack } from './support/stack';

/** The template editor in Debian's chromium: its preview follows the typing, under the page's own content security policy. */
describe('mail templates in a real browser', () => {
  let stack: Stack;
  let browser: Browser;
  let page: Page;
  const refusedByPolicy: string[] = [];

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api'] });
    const acme = await stack.createProduct({ name: 'Acme' });
    await stack.api.get(DashboardAuthService).createUser('ada@example.com', PASSWORD, acme.id);
    browser = await launchBrowser();
    page = await browser.newPage({ baseURL: await serve(stack) });
    page.setDefaultTimeout(10_000);
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) refusedByPolicy.push(message.text());
    });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('the preview shows the mail as typed, then the refusal with its line and column', async () => {
    await page.goto('/dashboard');
    await page.getByLabel('Email').fill('ada@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Acme' }).click();
    await page.getByRole('navigation').getByRole('link', { name: 'Mail templates', exact: true }).click();
    await page.getByRole('row', { name: /Confirmation mail/ }).getByRole('link').first().click();
    expect(await page.locator('#preview-subject').textContent()).toBe('Confirm your address for the Acme waitlist');

    // kept_for as the real mail says PENDING_ENTRY_TTL.
    await page.getByLabel('Subject').fill('Welcome to {{ product_name }}, for {{ kept_for }}');
    await page.locator('#preview-subject').getByText('Welcome to Acme, for 14 days').waitFor();
    await page.getByLabel('HTML').fill('<p>Hi <em>there</em></p>\n{{ confirm_url }}');
    await page.frameLocator('#preview-html').locator('em').getByText('there').waitFor();

    await page.getByLabel('Text').fill('No link\n  {{ code }}');
    await page.locator('#preview-error').getByText('Line 2, column 6 of the text: unknown variable "code"', { exact: false }).waitFor();
    expect(refusedByPolicy).toEqual([]);
  });
});
