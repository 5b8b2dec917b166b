import { EntryRecord } from '@app/shared';
import { Browser, Page } from 'playwright-core';
import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { dashboardPage } from './support/browser';
import { PASSWORD } from './support/dashboard';
import { bearer } from './support/flows';
import { Product, Stack } from './support/stack';

/** Sign-up questions set in the dashboard and answered on the hosted form, in Debian's chromium. */
describe('sign-up questions in a real browser', () => {
  let stack: Stack;
  let browser: Browser;
  let page: Page;
  let acme: Product;

  beforeAll(async () => {
    stack = await Stack.start({ apps: ['api'] });
    acme = await stack.createProduct({ name: 'Acme' });
    await stack.api.get(DashboardAuthService).createUser('ada@example.com', PASSWORD, acme.id);
    ({ browser, page } = await dashboardPage(stack, 'ada@example.com', PASSWORD));
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('the team sets questions in the settings; the hosted form asks them and keeps the answers with the visit’s UTM and referrer', async () => {
    await page.goto(`/dashboard/${acme.id}/live/settings`);
    await page.getByRole('link', { name: 'Sign-up questions' }).click();
    // The builder has one empty row; each save adds another.
    for (const [n, key, type, need, label, choices] of [
      [1, 'company', 'short_text', 'required', 'Company name', ''],
      [2, 'role', 'single_choice', 'optional', 'Your role', 'Founder\nEngineer'],
      [3, 'tools', 'multiple_choice', 'optional', 'Tools', 'Slack\nJira\nLinear'],
      [4, 'consent', 'checkbox', 'required', 'I agree to be contacted', ''],
    ]) {
      const row = page.getByRole('group', { name: `Question ${n} (new)` });
      await row.getByLabel('Key', { exact: true }).fill(String(key));
      await row.getByLabel('Type', { exact: true }).selectOption(String(type));
      await row.getByLabel('Answer', { exact: true }).selectOption(String(need));
      await row.getByLabel('Label', { exact: true }).fill(String(label));
      await row.getByLabel('Choices', { exact: true }).fill(String(choices));
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    }

    const pk = acme.keys.live.publishable;
    await page.goto(`/w/${pk}?utm_source=ads&utm_campaign=winter`, { referer: 'https://search.example/results?q=waitlist' });
    await page.getByLabel('Email address').fill('browser@example.com');
    await page.getByLabel('Company name').fill('Globex');
    await page.getByLabel('Your role').selectOption('Engineer');
    await page.getByLabel('Slack').check();
    await page.getByLabel('Linear').check();
    // The browser itself refuses the form while the required box is not ticked.
    await page.getByRole('button', { name: 'Join the waitlist' }).click();
    expect(page.url()).toContain(`/w/${pk}?`);
    await page.getByLabel('I agree to be contacted').check();
    await page.getByRole('button', { name: 'Join the waitlist' }).click();
    await page.waitForURL(`**/w/${pk}/sent`);

    const entry = await stack.db.getRepository(EntryRecord).findOneByOrFail({ email: 'browser@example.com' });
    const profile = await stack.request({ method: 'GET', url: `/api/v1/entries/${entry.id}/profile`, headers: bearer(acme.keys.live.secret) });
    expect(profile.json()).toEqual({
      id: entry.id,
      locale: 'en',
      answers: { company: 'Globex', role: 'Engineer', tools: ['Slack', 'Linear'], consent: true },
      attribution: {
        utm_source: 'ads',
        utm_campaign: 'winter',
        referrer: 'https://search.example/results?q=waitlist',
        landing_page: `${stack.config.PUBLIC_BASE_URL}/w/${pk}?utm_source=ads&utm_campaign=winter`,
      },
    });

    await page.goto(`/dashboard/${acme.id}/live/entries?utm_campaign=winter`);
    await page.getByRole('link', { name: 'browser@example.com' }).click();
    await page.getByRole('cell', { name: 'Slack, Linear' }).waitFor();
  });
});
