import { Browser, Locator, Page } from 'playwright-core';
import { MyDataLinks } from '@app/shared';
import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { PersonalDataService } from '../apps/api/src/personal-data/personal-data.service';
import { SETTINGS_SECTIONS } from '../apps/api/src/dashboard/settings/settings-sections';
import { launchBrowser, serve } from './support/browser';
import { PASSWORD } from './support/dashboard';
import { joinLine } from './support/flows';
import { Receiver } from './support/receiver';
import { Product, Stack } from './support/stack';
import { waitFor } from './support/wait';
import { phoneChecks, PHONE } from './support/phone';

/** Every dashboard page at a phone's size, clicked through in Debian's chromium (the hosted pages: dashboard-phone-hosted). */
describe('the dashboard on a phone', () => {
  let stack: Stack;
  let receiver: Receiver;
  let browser: Browser;
  let page: Page;
  let acme: Product;

  beforeAll(async () => {
    stack = await Stack.start({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
    receiver = await new Receiver().start();
    acme = await stack.createProduct({ name: 'Acme Notes for Teams' });
    await stack.api.get(DashboardAuthService).createUser('ada.lovelace@acme-notes.example', PASSWORD, acme.id);
    const grace = await joinLine(stack, acme.keys.live.publishable, 'grace.hopper@acme-notes.example');
    await joinLine(stack, acme.keys.live.publishable, 'alan.turing@acme-notes.example', grace.referralCode!);
    // An entry its person deleted from the my-data page: a line of the privacy trail, and an old page that says so.
    const charles = await joinLine(stack, acme.keys.live.publishable, 'charles.babbage@acme-notes.example');
    await stack.api.get(PersonalDataService).delete(new MyDataLinks(stack.config.ENCRYPTION_KEY).sign(charles.id, new Date(Date.now() + 60_000)));
    browser = await launchBrowser();
    page = await browser.newPage({ baseURL: await serve(stack), viewport: PHONE });
    // Far below the test's own timeout, so that a missing element is reported by name.
    page.setDefaultTimeout(10_000);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await receiver?.stop();
    await stack?.stop();
  });

  const { problems, fits, fitsWithBar, walkLinks } = phoneChecks(() => page);

  const nav = (name: string) => page.getByRole('navigation').getByRole('link', { name, exact: true }).click();

  /** Follows a destructive action's link to the page that asks first, checks that page, and cancels. */
  async function asks(link: string, name: string): Promise<void> {
    await page.getByRole('link', { name: link, exact: true }).first().click();
    await page.getByRole('link', { name: 'Cancel' }).waitFor();
    await fitsWithBar(name);
    await page.getByRole('link', { name: 'Cancel' }).click();
  }

  /** A CSV file of a tool the import does not know, with one row: its columns are picked on the page. */
  const OLD_TOOL = { name: 'old-tool.csv', mimeType: 'text/csv', buffer: Buffer.from('E-Mail Address,Joined On\nada.byron@acme-notes.example,2025-03-01\n') };

  it('every page of the dashboard fits a 390×844 screen, the pages that ask before destroying and the import steps too, with its sections and "Sign out" in reach', async () => {
    problems.length = 0;
    await page.goto('/dashboard/login');
    await fits('sign-in');
    await page.getByLabel('Email').fill('ada.lovelace@acme-notes.example');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Your products' }).waitFor();
    await fitsWithBar('products');
    await page.getByRole('link', { name: 'Acme Notes for Teams' }).click();
    await page.getByRole('heading', { name: 'Overview (live)' }).waitFor();
    await page.getByRole('heading', { name: 'Privacy requests' }).waitFor();
    await fitsWithBar('overview, with the privacy trail');
    await page.getByRole('link', { name: /^ent_/ }).first().click();
    await page.getByRole('heading', { name: 'Entry deleted' }).waitFor();
    await fitsWithBar("a deleted entry's old page");
    await nav('Overview');
    await page.getByRole('banner').getByRole('link', { name: 'Test', exact: true }).click();
    await page.getByRole('heading', { name: /^Next steps/ }).waitFor();
    await fitsWithBar('an empty overview, with its next steps');
    // Test mode's one entry comes after its empty overview was walked: the walk's test-mode release takes it.
    await joinLine(stack, acme.keys.test.publishable, 'mary.jackson@acme-notes.example');
    await page.getByRole('banner').getByRole('link', { name: 'Live', exact: true }).click();

    await nav('Entries');
    await fitsWithBar('entries');
    await page.getByLabel('Select alan.turing@acme-notes.example').check();
    await page.getByLabel('Bulk action').selectOption('delete');
    await page.getByRole('button', { name: 'Apply to the selected' }).click();
    await page.getByRole('link', { name: 'Cancel' }).waitFor();
    await fitsWithBar('delete 1 entry?');
    await page.getByRole('link', { name: 'Cancel' }).click();
    await page.getByRole('link', { name: 'grace.hopper@acme-notes.example' }).click();
    await fitsWithBar('an entry');
    await asks('Delete', 'delete an entry?');

    await nav('Entries');
    await page.getByRole('link', { name: 'Import CSV' }).click();
    await page.getByRole('heading', { name: 'Import entries' }).waitFor();
    await fitsWithBar('import: the upload form');
    /** Presses the button, then waits for what the next step shows. */
    const step = async (button: string, shown: Locator) => {
      await page.getByRole('button', { name: button }).click();
      await shown.waitFor();
    };
    // The file is chosen once: the next steps read the upload the server holds.
    await page.getByLabel('CSV file').setInputFiles(OLD_TOOL);
    await step('Show the columns', page.getByRole('heading', { name: 'Columns' }));
    await fitsWithBar("import: the file's columns to pick fields for");
    await page.getByLabel('Field of column Joined On').selectOption('createdAt');
    await step('Check the file (dry run)', page.getByRole('heading', { name: 'Dry run: nothing was written' }));
    await fitsWithBar("import: the dry run's report");
    await step('Import 1 entry', page.getByRole('status'));
    await fitsWithBar('import: done, the entries with what it did');

    await nav('Line');
    await fitsWithBar('line');

    await nav('Referrals');
    await fitsWithBar('referrals to review');

    await nav('Webhooks');
    await page.getByPlaceholder('https://example.com/webhooks').fill(`${receiver.url}/webhooks/waitlist-events`);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.locator('code[data-secret]').waitFor();
    await fitsWithBar('webhooks, with a new signing secret');
    await asks('Rotate secret', 'rotate a signing secret?');
    await asks('Delete', 'delete an endpoint?');
    await page.getByRole('button', { name: 'Send test event' }).click();
    // The message under the bar names the endpoint's whole URL: it wraps rather than widen the page.
    await page.getByRole('status').filter({ hasText: 'webhook.test event is on its way' }).waitFor();
    await fitsWithBar('webhooks, saying where the test event goes');
    await page.getByRole('link', { name: 'Delivery log' }).click();
    await waitFor(async () => {
      await page.reload();
      return (await page.locator('tr', { hasText: 'webhook.test' }).count()) === 1;
    }, 'the test event in the delivery log', { intervalMs: 200 });
    await fitsWithBar('a delivery log');

    await nav('API keys');
    await page.getByRole('button', { name: 'Create a key pair' }).click();
    await page.locator('code[data-secret]').waitFor();
    await fitsWithBar('API keys, with a new secret key');
    await asks('Revoke', 'revoke a key?');

    await nav('Sign-up hooks');
    await page.getByRole('button', { name: 'Add a hook' }).click();
    await page.locator('code[data-secret]').waitFor();
    await fitsWithBar('sign-up hooks, with a new hook');
    await asks('Revoke', 'revoke a sign-up hook?');

    // A release of the test mode, whose line is its own: its run invites there, and the live line stays as the hosted pages below want it.
    await page.goto(`/dashboard/${acme.id}/test/releases`);
    await page.getByLabel('Invite').fill('1');
    await page.getByLabel('Runs').selectOption({ label: 'every weekday (Monday to Friday)' });
    await page.getByLabel('in the time zone').fill('America/Argentina/Buenos_Aires');
    await page.getByRole('button', { name: 'Schedule the release' }).click();
    await fitsWithBar('releases, with a release');
    await asks('Run now', 'run a release now?');
    await page.getByRole('link', { name: 'Run now' }).click();
    await page.getByRole('button', { name: 'Run now' }).click();
    await page.getByRole('status').waitFor();
    await fitsWithBar('releases, after a run');
    await page.getByRole('link', { name: 'Runs' }).click();
    await fitsWithBar("a release's next runs and its runs");
    await page.getByRole('link', { name: 'Who' }).click();
    await page.getByRole('list', { name: 'Invited' }).waitFor();
    await fitsWithBar("a release run's invited and failed");
    await page.goto(`/dashboard/${acme.id}/live/overview`);

    await nav('Settings');
    await fitsWithBar('settings');
    for (const section of SETTINGS_SECTIONS) {
      await page.getByRole('link', { name: section.title, exact: true }).click();
      await fitsWithBar(`settings: ${section.title}`);
    }
    await page.getByRole('link', { name: 'Leaderboard and milestones', exact: true }).click();
    await page.getByRole('group', { name: 'Milestone 1 (new)' }).getByLabel('Credited referrals').fill('3');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('.error').first().waitFor();
    // The refused form opens at its field (autofocus), scrolled past the bar: only its width is checked.
    await fits('settings: a milestone refused beside its field');
    await walkLinks();
    expect(problems).toEqual([]);
    // About seventy page loads: 15 s on a quiet machine, over a minute on a busy two-CPU CI runner.
  }, 240_000);
});
