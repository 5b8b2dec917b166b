import { Clock, EntryRecord } from '@app/shared';
import { Browser, Page } from 'playwright-core';
import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { ProductsService } from '../apps/api/src/products/products.service';
import { launchBrowser, serve } from './support/browser';
import { PASSWORD } from './support/dashboard';
import { referredFrom } from './support/flows';
import { line } from './support/invitations';
import { Product, Stack } from './support/stack';

/** The referral review and an entry's timeline (issue 21), clicked through in Debian's chromium. */
describe('referral review in a real browser', () => {
  let stack: Stack;
  let browser: Browser;
  let page: Page;
  let acme: Product;
  let referrer: EntryRecord;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api', 'mailer'], env: { RATE_LIMIT_SIGNUP: '10000/1m' } });
    // A minute ahead, so that no confirmation here is withheld as too fast: the disposable domain is the only reason.
    jest.spyOn(stack.api.get(Clock), 'now').mockImplementation(() => new Date(Date.now() + 60_000));
    acme = await stack.createProduct({ name: 'Acme' });
    await stack.api.get(ProductsService).update(acme.id, { referralProtection: 'standard' });
    await stack.api.get(DashboardAuthService).createUser('ada@example.com', PASSWORD, acme.id);
    [, referrer] = await line(stack, acme.keys.test.publishable, ['first@example.com', 'host@example.com']);
    await referredFrom(stack, acme, referrer, 'friend@mailinator.com', '198.51.100.7');
    const baseURL = await serve(stack);
    browser = await launchBrowser();
    page = await browser.newPage({ baseURL });
    // Far below the test's own timeout, so that a missing element is reported by name.
    page.setDefaultTimeout(10_000);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  const row = (text: string) => page.locator('tr', { hasText: text });
  const history = () => page.locator('h2', { hasText: 'History' }).locator('xpath=following-sibling::div[1]').locator('tr');
  const referralRows = async (): Promise<{ state: string; reasons: string[] }[]> =>
    stack.db.query(`SELECT state, reasons FROM referrals WHERE referrer_id = $1`, [referrer.id]);
  const referrals = async () => (await stack.db.getRepository(EntryRecord).findOneByOrFail({ id: referrer.id })).referrals;

  it('signs in, sees the withheld referral with its reason, grants it with one click, sees the entry credited and the grant in its timeline, then revokes it through its confirmation page', async () => {
    expect(await referrals()).toBe(0);
    expect(await referralRows()).toEqual([{ state: 'withheld', reasons: ['disposable_domain'] }]);

    await page.goto('/dashboard');
    await page.getByLabel('Email').fill('ada@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Acme' }).click();
    await page.getByRole('link', { name: 'Test', exact: true }).click();
    await page.getByRole('navigation').getByRole('link', { name: 'Referrals', exact: true }).click();
    expect(page.url()).toMatch(new RegExp(`/dashboard/${acme.id}/test/referrals$`));
    expect(await page.getByRole('heading').first().textContent()).toBe('Referrals to review');

    const withheld = row('friend@mailinator.com');
    expect(await withheld.textContent()).toContain('host@example.com');
    expect(await withheld.textContent()).toContain('a disposable or blocked domain');
    await withheld.getByRole('button', { name: 'Grant' }).click();
    // The grant returns to the review, where the referral is no more.
    await page.getByText('Nothing to review.').waitFor();
    expect(page.url()).toMatch(/\/referrals$/);
    expect(await referrals()).toBe(1);
    expect(await referralRows()).toEqual([{ state: 'credited', reasons: ['disposable_domain', 'granted_by_team'] }]);

    await page.getByRole('navigation').getByRole('link', { name: 'Entries', exact: true }).click();
    await page.getByRole('link', { name: 'host@example.com' }).click();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('host@example.com');
    expect(await page.getByText('Place in line').textContent()).toContain('#1');
    expect(await row('Referrals').first().textContent()).toMatch(/Referrals\s*1/);
    const credited = row('friend@mailinator.com');
    expect(await credited.locator('.pill').textContent()).toBe('credited');
    expect(await credited.textContent()).toContain('a disposable or blocked domain; granted by the team');
    expect(await credited.getByRole('button', { name: 'Grant' }).count()).toBe(0);
    expect(await history().nth(1).textContent()).toContain('The team granted a referral, up 1 place');
    expect(await history().nth(2).textContent()).toContain('A referral was withheld (a disposable or blocked domain)');

    await credited.getByRole('link', { name: 'Revoke' }).click();
    // The link only asks: the referral still counts until the confirmation's button is pressed.
    expect(await page.getByRole('heading').first().textContent()).toBe('Revoke the referral of friend@mailinator.com?');
    expect(await page.getByText('The referral no longer counts').textContent()).toContain('host@example.com has one referral less and moves back 1 place');
    expect(await referrals()).toBe(1);
    expect((await referralRows())[0].state).toBe('credited');
    await page.getByRole('button', { name: 'Revoke the referral' }).click();

    expect(await page.getByRole('status').textContent()).toContain('Referral revoked: host@example.com moves from #1 to #2.');
    expect(page.url()).toMatch(new RegExp(`/entries/${referrer.id}$`));
    expect(await page.getByText('Place in line').textContent()).toContain('#2');
    const revoked = row('friend@mailinator.com');
    expect(await revoked.locator('.pill').textContent()).toBe('withheld');
    expect(await revoked.textContent()).toContain('revoked by the team');
    expect(await revoked.getByRole('link', { name: 'Revoke' }).count()).toBe(0);
    expect(await history().nth(1).textContent()).toContain('The team revoked a referral, back 1 place');
    expect(await history().nth(2).textContent()).toContain('The team granted a referral, up 1 place');
    expect(await referrals()).toBe(0);
    expect(await referralRows()).toEqual([{ state: 'withheld', reasons: ['disposable_domain', 'revoked_by_team'] }]);

    // A revoked referral leaves the review.
    await page.getByRole('navigation').getByRole('link', { name: 'Referrals', exact: true }).click();
    expect(await page.getByText('Nothing to review.').count()).toBe(1);
  }, 60_000);
});
