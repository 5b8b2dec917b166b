import { Browser, Page } from 'playwright-core';
import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { ProductsService } from '../apps/api/src/products/products.service';
import { dashboardPage } from './support/browser';
import { PASSWORD } from './support/dashboard';
import { joinLine } from './support/flows';
import { invitationsTo } from './support/invitations';
import { Product, Stack } from './support/stack';

const MONDAY_AT_NINE = /^Monday \d{1,2} [A-Z][a-z]+, 09:00 \(Europe\/Berlin\)$/;

/** A release as a launch team makes it in Debian's chromium: chosen in words, its next runs read, "Run now" asked first, the run's people listed. */
describe('a release made by choice in a real browser', () => {
  let stack: Stack;
  let browser: Browser;
  let page: Page;
  let acme: Product;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api', 'mailer'] });
    acme = await stack.createProduct({ name: 'Acme' });
    await stack.api.get(ProductsService).update(acme.id, { capacity: 2 });
    await stack.api.get(DashboardAuthService).createUser('ada@example.com', PASSWORD, acme.id);
    for (const email of ['first@example.com', 'second@example.com', 'third@example.com', 'fourth@example.com']) await joinLine(stack, acme.keys.live.publishable, email);
    stack.mail.refuse.add('second@example.com');
    ({ browser, page } = await dashboardPage(stack, 'ada@example.com', PASSWORD));
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it("a release made by choice with its next runs shown and 'Run now' asked first, and the run's list of invited and failed", async () => {
    await page.getByRole('link', { name: 'Acme' }).click();
    await page.getByRole('navigation').getByRole('link', { name: 'Releases', exact: true }).click();

    await page.getByLabel('Invite').fill('3');
    await page.getByLabel('Runs').selectOption({ label: 'every week, on a day' });
    await page.getByLabel('on', { exact: true }).selectOption({ label: 'Monday' });
    await page.getByLabel('at', { exact: true }).fill('09:00');
    await page.getByLabel('in the time zone').fill('Europe/Berlin');
    await page.getByRole('button', { name: 'Schedule the release' }).click();
    const row = page.locator('tr', { hasText: 'Europe/Berlin' });
    expect(await row.locator('td').first().textContent()).toContain('Invite 3 every Monday at 09:00 in Europe/Berlin');
    expect(await row.locator('td').nth(1).innerText()).toMatch(MONDAY_AT_NINE);

    await row.getByRole('link', { name: 'Runs' }).click();
    const next = await page.getByRole('list', { name: 'The next five runs' }).getByRole('listitem').allInnerTexts();
    expect(next).toHaveLength(5);
    for (const run of next) expect(run).toMatch(MONDAY_AT_NINE);
    await page.getByRole('link', { name: '← Releases' }).click();

    await row.getByRole('link', { name: 'Run now' }).click();
    expect(await page.getByRole('heading').first().textContent()).toBe('Run this release now?');
    const asked = await page.locator('.confirm').innerText();
    expect(asked).toContain('This run will invite 2 people now');
    expect(asked).toContain('the capacity cap leaves 2 places free');
    expect(asked).toContain('at least 3 people are waiting in line');
    expect(invitationsTo(stack, 'first@example.com')).toHaveLength(0);
    await page.getByRole('button', { name: 'Run now' }).click();
    expect(await page.getByRole('status').textContent()).toContain('The run invited 1; 1 mail failed and its entry stays in line');
    expect(invitationsTo(stack, 'first@example.com')).toHaveLength(1);

    await row.getByRole('link', { name: 'Runs' }).click();
    await page.locator('tr', { hasText: 'run now' }).getByRole('link', { name: 'Who' }).click();
    expect(await page.getByRole('list', { name: 'Invited' }).innerText()).toBe('first@example.com');
    expect(await page.getByRole('list', { name: 'Mail failed, still in line' }).innerText()).toBe('second@example.com');
  }, 60_000);
});
