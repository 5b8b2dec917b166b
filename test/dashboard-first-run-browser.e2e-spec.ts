import { Browser, Page } from 'playwright-core';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DashboardAuthService } from '../apps/api/src/dashboard/auth/dashboard-auth.service';
import { launchBrowser, serve } from './support/browser';
import { PASSWORD } from './support/dashboard';
import { joinLine } from './support/flows';
import { linkIn } from './support/smtp-sink';
import { Product, Stack } from './support/stack';

const CLI = join(__dirname, '..', 'dist', 'apps', 'api', 'src', 'cli', 'main.js');

/** The team's privacy trail and a first run that leads somewhere, clicked through in Debian's chromium. */
describe('the privacy trail and the first run, in a real browser', () => {
  let stack: Stack;
  let browser: Browser;
  let page: Page;
  let acme: Product;

  beforeAll(async () => {
    stack = await Stack.start({ env: { RATE_LIMIT_SIGNUP_ADDRESS: '100/1h' } });
    acme = await stack.createProduct({ name: 'Acme' });
    await stack.api.get(DashboardAuthService).createUser('ada@example.com', PASSWORD, acme.id);
    for (const email of ['grace@example.com', 'alan@example.com']) await joinLine(stack, acme.keys.live.publishable, email);
    browser = await launchBrowser();
    page = await browser.newPage({ baseURL: await serve(stack), acceptDownloads: true });
    // Far below the test's own timeout, so that a missing element is reported by name.
    page.setDefaultTimeout(10_000);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  const signIn = async (email: string, password: string) => {
    await page.context().clearCookies();
    await page.goto('/dashboard/login');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Your products' }).waitFor();
  };

  it('the privacy trail after a data request, a download and a deletion', async () => {
    const [grace] = await stack.db.query(`SELECT id FROM entries WHERE email = 'grace@example.com'`);
    await page.goto(`/w/${acme.keys.live.publishable}/my-data`);
    await page.getByLabel('Email address').fill('grace@example.com');
    await page.getByRole('button', { name: 'Send me the link' }).click();
    await page.getByRole('heading', { name: 'Check your inbox' }).or(page.getByText('a mail with a link to your data is on its way')).first().waitFor();
    const mail = await stack.mail.waitFor('grace@example.com', 2);
    const link = new URL(linkIn(mail, `${stack.config.PUBLIC_BASE_URL}/my-data/`));
    await page.goto(link.pathname);
    const download = page.waitForEvent('download');
    await page.getByRole('link', { name: 'Download my data' }).click();
    expect(JSON.parse(readFileSync(await (await download).path(), 'utf8')).entry.id).toBe(grace.id);
    await page.getByRole('link', { name: 'Delete my data' }).click();
    await page.getByRole('button', { name: 'Delete my data' }).click();
    await page.getByRole('heading', { name: 'Your data is deleted' }).waitFor();

    await signIn('ada@example.com', PASSWORD);
    await page.getByRole('link', { name: 'Acme' }).click();
    await page.getByRole('heading', { name: 'Overview (live)' }).waitFor();
    const trail = page.locator('table', { has: page.getByRole('columnheader', { name: 'Entry' }) });
    const rows = await trail.getByRole('row').allTextContents();
    expect(rows.slice(1).map((row) => row.replace(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/, '').trim())).toEqual([
      `deleted their entry${grace.id}`,
      `downloaded their data${grace.id}`,
      `asked for the link to their data${grace.id}`,
    ]);
    // Neither the address nor the link's token is anywhere on the page.
    const text = (await page.content()) + rows.join('');
    expect(text).not.toContain('grace@example.com');
    expect(text).not.toContain(link.pathname.split('/').at(-1)!);

    const csv = page.waitForEvent('download');
    await page.getByRole('link', { name: 'Export the privacy requests (CSV)' }).click();
    const lines = readFileSync(await (await csv).path(), 'utf8').trimEnd().split('\r\n');
    expect(lines[0]).toBe('at,kind,entryId');
    expect(lines.slice(1).map((line) => line.split(',').slice(1).join(','))).toEqual([`deletion,${grace.id}`, `download,${grace.id}`, `request,${grace.id}`]);
    expect(lines.slice(1).every((line) => /^\d{4}-\d\d-\d\dT[\d:.]+Z,/.test(line))).toBe(true);

    // The deleted entry's old page says what happened, and leads back to the list; an id never seen is still 404.
    await page.getByRole('link', { name: grace.id }).first().click();
    await page.getByRole('heading', { name: 'Entry deleted' }).waitFor();
    expect(await page.getByText("at the person's own request").textContent()).toMatch(/deleted on \d{4}-\d\d-\d\d \d\d:\d\d:\d\d/);
    await page.getByRole('link', { name: '← Entries' }).click();
    await page.getByRole('link', { name: 'alan@example.com' }).waitFor();
    const [deleted, unknown] = await Promise.all([
      stack.request({ method: 'GET', url: `/dashboard/${acme.id}/live/entries/${grace.id}` }),
      page.goto(`/dashboard/${acme.id}/live/entries/00000000-0000-4000-8000-000000000000`),
    ]);
    expect(deleted.status).toBe(303);
    expect(unknown?.status()).toBe(404);
  });

  it('the demo opening in test mode', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'waitlist-demo-')), 'keys.json');
    const { stdout } = await promisify(execFile)('node', [CLI, 'demo', '--keys-file', file, '--json'], {
      env: { PATH: process.env.PATH, DATABASE_URL: stack.config.DATABASE_URL, REDIS_URL: stack.config.REDIS_URL, LOG_LEVEL: 'silent' },
    });
    const demo = JSON.parse(stdout) as { id: string; keys: { test: { publishable: string } }; dashboard: { email: string; password: string; overview: string } };
    expect(demo.dashboard.overview).toBe(`/dashboard/${demo.id}/test/overview`);

    // Fresh: the overview that npm start prints opens in test mode, with the next steps where the charts will be.
    await signIn(demo.dashboard.email, demo.dashboard.password);
    await page.goto(demo.dashboard.overview);
    await page.getByRole('heading', { name: 'Overview (test)' }).waitFor();
    const steps = page.getByRole('region', { name: /Next steps/ });
    await steps.getByRole('link', { name: `${stack.config.PUBLIC_BASE_URL}/w/${demo.keys.test.publishable}` }).first().waitFor();
    expect(await steps.locator('pre code').textContent()).toContain(`data-key="${demo.keys.test.publishable}"`);
    for (const heading of ['Refused sign-ups, last 30 days (UTC)', 'Mail, last 7 days (UTC)']) await page.getByRole('heading', { name: heading }).waitFor();
    expect(await page.locator('svg[role=img]').count()).toBe(0);

    // The first test sign-up, from the next steps' link: the charts take the steps' place, and the products' list opens test mode.
    await page.goto(new URL((await steps.getByRole('link', { name: "the test mode's form" }).getAttribute('href'))!).pathname);
    await page.getByLabel('Email address').fill('first@example.com');
    await page.getByRole('button', { name: 'Join the waitlist' }).click();
    await page.getByRole('heading', { name: 'Check your inbox' }).waitFor();
    await page.goto('/dashboard');
    await page.getByRole('link', { name: 'Demo' }).click();
    await page.getByRole('heading', { name: 'Overview (test)' }).waitFor();
    expect(await page.getByRole('region', { name: /Next steps/ }).count()).toBe(0);
    expect(await page.locator('svg[role=img]').count()).toBe(2);
    // Live stays the landing of a product with live entries.
    await signIn('ada@example.com', PASSWORD);
    await page.getByRole('link', { name: 'Acme' }).click();
    await page.getByRole('heading', { name: 'Overview (live)' }).waitFor();
  });
});
