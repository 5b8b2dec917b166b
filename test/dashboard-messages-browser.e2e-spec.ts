import { EntryRecord } from '@app/shared';
import { Clock } from '@app/shared';
import { Browser, Page } from 'playwright-core';
import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { ProductsService } from '../apps/api/src/products/products.service';
import { launchBrowser, serve } from './support/browser';
import { PASSWORD } from './support/dashboard';
import { referredFrom } from './support/flows';
import { line } from './support/invitations';
import { Receiver } from './support/receiver';
import { Product, Stack } from './support/stack';

/** Issue 39: every action ends with a message that says what changed, in one place under the bar, kept across the redirect. */
describe('the messages after each action, in a real browser', () => {
  let stack: Stack;
  let browser: Browser;
  let page: Page;
  let acme: Product;
  let referrer: EntryRecord;
  let receiver: Receiver;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api', 'mailer'], env: { RATE_LIMIT_SIGNUP: '10000/1m', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
    // A minute ahead, so that no confirmation is withheld as too fast: the disposable domain is the only reason.
    jest.spyOn(stack.api.get(Clock), 'now').mockImplementation(() => new Date(Date.now() + 60_000));
    acme = await stack.createProduct({ name: 'Acme' });
    await stack.api.get(ProductsService).update(acme.id, { referralProtection: 'standard' });
    await stack.api.get(DashboardAuthService).createUser('ada@example.com', PASSWORD, acme.id);
    [, referrer] = await line(stack, acme.keys.test.publishable, ['first@example.com', 'host@example.com', 'last@example.com']);
    await referredFrom(stack, acme, referrer, 'friend@mailinator.com', '198.51.100.7');
    receiver = await new Receiver().start();
    browser = await launchBrowser();
    page = await browser.newPage({ baseURL: await serve(stack) });
    page.setDefaultTimeout(10_000);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await receiver?.stop();
    await stack?.stop();
  });

  /** The one place a message is shown: first in the page's main part, right under the bar. */
  const said = () => page.locator('main > [role="status"]:first-child');
  const nav = (name: string) => page.getByRole('navigation').getByRole('link', { name, exact: true }).click();

  it('says what a grant, a revoke, a run now, a bulk action, a test event, a test mail and a save changed', async () => {
    await page.goto('/dashboard');
    await page.getByLabel('Email').fill('ada@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.goto(`/dashboard/${acme.id}/test/referrals`);

    await page.locator('tr', { hasText: 'friend@mailinator.com' }).getByRole('button', { name: 'Grant' }).click();
    expect(await said().textContent()).toContain('Referral granted: host@example.com moves from #2 to #1.');
    expect(page.url()).toMatch(/\/referrals$/);
    // Shown once: a reload shows nothing.
    await page.reload();
    expect(await page.getByRole('status').count()).toBe(0);

    await page.goto(`/dashboard/${acme.id}/test/entries/${referrer.id}`);
    await page.locator('tr', { hasText: 'friend@mailinator.com' }).getByRole('link', { name: 'Revoke' }).click();
    await page.getByRole('button', { name: 'Revoke the referral' }).click();
    expect(await said().textContent()).toContain('Referral revoked: host@example.com moves from #1 to #2.');

    await nav('Releases');
    await page.getByLabel('Invite').fill('1');
    await page.getByLabel('Runs').selectOption({ label: 'on a cron expression (expert)' });
    await page.getByLabel('cron expression', { exact: true }).fill('0 9 * * 1');
    await page.getByLabel('in the time zone').fill('UTC');
    await page.getByRole('button', { name: 'Schedule the release' }).click();
    await page.locator('tr', { hasText: 'every Monday' }).getByRole('link', { name: 'Run now' }).click();
    await page.getByRole('button', { name: 'Run now' }).click();
    expect(await said().textContent()).toContain('The run invited 1.');

    await nav('Entries');
    await page.getByLabel('Select last@example.com').check();
    await page.getByLabel('Select host@example.com').check();
    await page.getByLabel('Bulk action').selectOption('move-up');
    await page.getByLabel('Places (move up)').fill('1');
    await page.getByRole('button', { name: 'Apply to the selected' }).click();
    await page.getByRole('button', { name: 'Move up 2 entries' }).click();
    expect(await said().textContent()).toContain('2 of 2 entries moved up.');

    await nav('Webhooks');
    await page.getByPlaceholder('https://example.com/webhooks').fill(`${receiver.url}/hook`);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByRole('button', { name: 'Send test event' }).click();
    expect(await said().textContent()).toContain(`A webhook.test event is on its way to ${receiver.url}/hook`);

    await page.goto(`/dashboard/${acme.id}/test/templates/confirmation/all`);
    await page.getByRole('button', { name: 'Send a test to ada@example.com' }).click();
    expect(await said().textContent()).toContain('A test mail went to ada@example.com.');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    expect(await said().textContent()).toContain('Saved: the next confirmation mails');

    // Settings are in sections since this was written: a section's save says which.
    await nav('Settings');
    await page.getByRole('link', { name: 'Line and referrals', exact: true }).click();
    await page.getByRole('button', { name: 'Save' }).click();
    expect(await said().textContent()).toContain('Saved. Line and referrals: what this page shows is in effect.');
  }, 90_000);

  it('acts without JavaScript: a grant’s and a move-up’s messages are kept across the redirect all the same', async () => {
    const plain = await browser.newPage({ baseURL: new URL(page.url()).origin, javaScriptEnabled: false });
    await plain.goto('/dashboard');
    await plain.getByLabel('Email').fill('ada@example.com');
    await plain.getByLabel('Password').fill(PASSWORD);
    await plain.getByRole('button', { name: 'Sign in' }).click();
    // Revoked, the referral is off the review: its grant is on the referrer's page, and leads back there.
    await plain.goto(`/dashboard/${acme.id}/test/entries/${referrer.id}`);
    await plain.locator('tr', { hasText: 'friend@mailinator.com' }).getByRole('button', { name: 'Grant' }).click();
    // The first was invited by the run and host@ moved up in bulk: first in line already, it stays there.
    expect(await plain.locator('main > [role="status"]:first-child').textContent()).toContain('Referral granted: host@example.com stays at #1.');
    expect(plain.url()).toMatch(new RegExp(`/entries/${referrer.id}$`));

    await plain.goto(`/dashboard/${acme.id}/test/entries?email=last`);
    await plain.getByRole('link', { name: 'last@example.com' }).click();
    await plain.getByLabel('Places').fill('5');
    await plain.getByRole('button', { name: 'Move up' }).click();
    expect(await plain.locator('main > [role="status"]:first-child').textContent()).toContain('last@example.com moved up from #2 to #1.');
    await plain.close();
  }, 60_000);
});
