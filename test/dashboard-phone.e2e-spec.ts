import { Browser, Locator, Page } from 'playwright-core';
import { MyDataLinks } from '@app/shared';
import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { PersonalDataService } from '../apps/api/src/personal-data/personal-data.service';
import { SETTINGS_SECTIONS } from '../apps/api/src/dashboard/settings/settings-sections';
import { launchBrowser, serve } from './support/browser';
import { PASSWORD } from './support/dashboard';
import { confirmPath, joinLine } from './support/flows';
import { api, invitationsTo } from './support/invitations';
import { Receiver } from './support/receiver';
import { linkIn } from './support/smtp-sink';
import { Product, Stack } from './support/stack';
import { waitFor } from './support/wait';

const PHONE = { width: 390, height: 844 };

/** What the page's check reads of the browser's window (the tests compile without the DOM's types). */
interface InPage {
  innerWidth: number;
  document: {
    documentElement: { scrollWidth: number };
    querySelectorAll(selector: string): Iterable<{
      closest(selector: string): unknown;
      getBoundingClientRect(): { right: number };
      getAttribute(name: string): string | null;
      textContent: string | null;
    }>;
  };
}

/** Every dashboard page and every hosted page at a phone's size, clicked through in Debian's chromium. */
describe('dashboard and hosted pages on a phone', () => {
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

  /** Pages that do not fit, with what sticks out; collected over a walk so that one run names them all. */
  const problems: string[] = [];
  /** The dashboard pages the walk checked, and those its pages link to (path and query). */
  const walked = new Set<string>();
  const linked = new Set<string>();
  const pathOf = (url: string) => {
    const { pathname, search } = new URL(url, 'http://page');
    return pathname + search;
  };

  /**
   * The page is no wider than the screen (a table may scroll inside its own box), and no form control
   * outside a table lies beyond its right edge.
   */
  async function fits(name: string): Promise<void> {
    const { scrollWidth, innerWidth, outside, links } = await page.evaluate(() => {
      const { document, innerWidth } = globalThis as unknown as InPage;
      return {
        scrollWidth: document.documentElement.scrollWidth,
        innerWidth,
        outside: [...document.querySelectorAll('input:not([type=hidden]), select, textarea, button')]
          .filter((control) => !control.closest('table') && control.getBoundingClientRect().right > innerWidth)
          .map((control) => control.getAttribute('name') ?? control.textContent),
        links: [...document.querySelectorAll('a[href^="/dashboard/"]')].map((link) => link.getAttribute('href')!),
      };
    });
    walked.add(pathOf(page.url()));
    // A download (the entries' CSV) is no page.
    for (const link of links) if (!new URL(link, 'http://page').pathname.endsWith('.csv')) linked.add(pathOf(link));
    if (scrollWidth > innerWidth) problems.push(`${name}: ${scrollWidth} px wide on a ${innerWidth} px screen`);
    if (outside.length) problems.push(`${name}: beyond the right edge: ${outside.join(', ')}`);
  }

  /** `fits`, and the bar's sections and "Sign out" are on the first screen, where a thumb reaches them. */
  async function fitsWithBar(name: string): Promise<void> {
    await fits(name);
    const targets = [page.getByRole('button', { name: 'Sign out' }), ...(await page.getByRole('navigation').getByRole('link').all())];
    for (const target of targets) {
      const box = (await target.isVisible()) ? await target.boundingBox() : null;
      const inside = box && box.x >= 0 && box.x + box.width <= PHONE.width && box.y >= 0 && box.y + box.height <= PHONE.height;
      if (!inside) problems.push(`${name}: "${await target.textContent()}" is ${box ? `at x ${Math.round(box.x)}–${Math.round(box.x + box.width)}, y ${Math.round(box.y)}` : 'hidden'}`);
    }
  }

  const nav = (name: string) => page.getByRole('navigation').getByRole('link', { name, exact: true }).click();

  /** Follows a destructive action's link to the page that asks first, checks that page, and cancels. */
  async function asks(link: string, name: string): Promise<void> {
    await page.getByRole('link', { name: link, exact: true }).first().click();
    await page.getByRole('link', { name: 'Cancel' }).waitFor();
    await fitsWithBar(name);
    await page.getByRole('link', { name: 'Cancel' }).click();
  }

  /**
   * The pages that the walked pages link to and the walk did not reach, each checked (with what they
   * link to in turn): every page a link leads to is walked, whether or not the walk above knew of it.
   */
  async function walkLinks(): Promise<void> {
    for (let next = [...linked].filter((path) => !walked.has(path)); next.length > 0; next = [...linked].filter((path) => !walked.has(path))) {
      for (const path of next) {
        await page.goto(path);
        await fitsWithBar(`${path} (linked)`);
        walked.add(path);
      }
    }
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

  it('every hosted page fits a 390×844 screen: sign-up, check your inbox, confirm before and after, invited, unsubscribe before and after, a dead link, the invitation page with a valid, used, expired and unknown code', async () => {
    problems.length = 0;
    const grace = await stack.db.query(`SELECT id, referral_code FROM entries WHERE email = 'grace.hopper@acme-notes.example'`);
    await page.goto(`/w/${acme.keys.live.publishable}?ref=${grace[0].referral_code}`);
    await fits('sign-up form');
    await page.getByLabel('Email address').fill('katherine.johnson@acme-notes.example');
    await page.getByRole('button', { name: 'Join the waitlist' }).click();
    await page.getByRole('heading', { name: 'Check your inbox' }).waitFor();
    await fits('check your inbox');

    await page.goto(await confirmPath(stack, 'katherine.johnson@acme-notes.example'));
    await fits('confirm, before');
    await page.getByRole('button', { name: 'Confirm my address' }).click();
    await page.getByText('Share your link').waitFor();
    await page.getByRole('button', { name: 'Copy', exact: true }).waitFor();
    await fits('confirm, after: place, referral link, copy button and share links');

    const alan = await stack.db.query(`SELECT id FROM entries WHERE email = 'alan.turing@acme-notes.example'`);
    expect((await api(stack, acme.keys.live.secret).invite(alan[0].id)).status).toBe(200);
    // The confirmation mail, the first of two now.
    await page.goto(new URL(linkIn(stack.mail.to('alan.turing@acme-notes.example')[0], `${stack.config.PUBLIC_BASE_URL}/confirm/`)).pathname);
    await page.getByRole('heading', { name: "You're invited" }).waitFor();
    await fits('confirm, invited');

    const mail = await stack.mail.waitFor('katherine.johnson@acme-notes.example', 1);
    const unsubscribe = new URL(linkIn(mail, `${stack.config.PUBLIC_BASE_URL}/unsubscribe/`)).pathname;
    await page.goto(unsubscribe);
    await fits('unsubscribe, before');
    await page.getByRole('button', { name: 'Unsubscribe' }).click();
    await page.getByRole('heading', { name: "You're unsubscribed" }).waitFor();
    await fits('unsubscribe, after');
    await page.goto(unsubscribe);
    await fits('a link no longer valid');

    // Acme has no invite URL, so an invitation mail links to the hosted invitation page.
    const invitationTo = async (email: string) => {
      await waitFor(() => invitationsTo(stack, email).length === 1, `the invitation mail to ${email}`);
      return new URL(linkIn(invitationsTo(stack, email)[0], `${stack.config.PUBLIC_BASE_URL}/invitation?invite=`));
    };
    const opens = async (url: URL | string, status: number, heading: string) => {
      const answer = await page.goto(typeof url === 'string' ? url : url.pathname + url.search);
      expect(answer?.status()).toBe(status);
      await page.getByRole('heading', { name: heading }).waitFor();
    };
    const alanInvitation = await invitationTo('alan.turing@acme-notes.example');
    await opens(alanInvitation, 200, "You're invited to Acme Notes for Teams");
    for (const shown of ['alan.turing@acme-notes.example', 'For developers: Acme Notes for Teams has no invite URL', 'curl -X POST']) {
      await page.getByText(shown).first().waitFor();
    }
    await fits('invitation, valid: address, product, developer note and curl line');
    expect((await api(stack, acme.keys.live.secret).redeem(alanInvitation.searchParams.get('invite')!)).json()).toMatchObject({ valid: true });
    await opens(alanInvitation, 410, 'This invitation was already used');
    await fits('invitation, used');

    expect((await api(stack, acme.keys.live.secret).invite(grace[0].id)).status).toBe(200);
    const graceInvitation = await invitationTo('grace.hopper@acme-notes.example');
    await stack.db.query(`UPDATE invite_codes SET expires_at = now() - interval '1 minute' WHERE entry_id = $1`, [grace[0].id]);
    await opens(graceInvitation, 410, 'This invitation has expired');
    await fits('invitation, expired');

    await opens(`/invitation?invite=${'A'.repeat(43)}`, 404, 'This invitation link is not valid');
    await fits('invitation, unknown code');
    expect(problems).toEqual([]);
  }, 60_000);
});
