import { Browser, Page } from 'playwright-core';
import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { launchBrowser, serve } from './support/browser';
import { PASSWORD } from './support/dashboard';
import { joinLine } from './support/flows';
import { invitationsTo } from './support/invitations';
import { Product, Stack } from './support/stack';

/** The Releases section clicked through in Debian's chromium: schedule by cron, run now after asking, pause, the runs, delete after asking. */
describe('releases in a real browser', () => {
  let stack: Stack;
  let browser: Browser;
  let page: Page;
  let acme: Product;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api', 'mailer'] });
    acme = await stack.createProduct({ name: 'Acme' });
    await stack.api.get(DashboardAuthService).createUser('ada@example.com', PASSWORD, acme.id);
    for (const email of ['first@example.com', 'second@example.com', 'third@example.com']) await joinLine(stack, acme.keys.live.publishable, email);
    browser = await launchBrowser();
    page = await browser.newPage({ baseURL: await serve(stack) });
    page.setDefaultTimeout(10_000);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('schedules a release, runs it now, pauses it, shows its runs and deletes it through its confirmation page', async () => {
    await page.goto('/dashboard');
    await page.getByLabel('Email').fill('ada@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Acme' }).click();
    await page.getByRole('navigation').getByRole('link', { name: 'Releases', exact: true }).click();
    expect(await page.getByRole('heading').first().textContent()).toBe('Releases (live)');

    await page.getByLabel('Invite').fill('2');
    await page.getByLabel('Runs').selectOption({ label: 'on a cron expression (expert)' });
    await page.getByLabel('cron expression', { exact: true }).fill('0 9 * * 1');
    await page.getByLabel('in the time zone').fill('Europe/Berlin');
    await page.getByRole('button', { name: 'Schedule the release' }).click();
    const row = page.locator('tr', { hasText: 'Europe/Berlin' });
    expect(await row.textContent()).toMatch(/Invite 2 every Monday at 09:00 in Europe\/Berlin.*Monday \d+ \w+, 09:00 \(Europe\/Berlin\).*active/s);

    await row.getByRole('link', { name: 'Run now' }).click();
    await page.getByRole('button', { name: 'Run now' }).click();
    expect(await page.getByRole('status').textContent()).toContain('The run invited 2.');
    expect(invitationsTo(stack, 'first@example.com')).toHaveLength(1);
    expect(invitationsTo(stack, 'third@example.com')).toHaveLength(0);

    await row.getByRole('button', { name: 'Pause' }).click();
    expect(await row.textContent()).toContain('paused');
    await row.getByRole('link', { name: 'Runs' }).click();
    expect(await page.locator('tr', { hasText: 'run now' }).textContent()).toMatch(/run now.*22/s);
    await page.getByRole('link', { name: '← Releases' }).click();

    await row.getByRole('link', { name: 'Delete' }).click();
    expect(await page.getByRole('heading').first().textContent()).toBe('Delete this release?');
    await page.getByRole('button', { name: 'Delete the release' }).click();
    expect(await page.getByText('No releases yet.').count()).toBe(1);
  }, 60_000);
});
